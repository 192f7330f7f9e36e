import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import StopFork from '../../renderer/src/components/StopFork.svelte';

describe('STOP of every running branch', () => {
  it('says what stopping does to the fork before it is confirmed', async () => {
    const onstop = vi.fn();
    render(StopFork, { props: { active: true, stopping: false, onstop } });
    await fireEvent.click(screen.getByRole('button', { name: 'Stop every running branch' }));
    const confirm = screen.getByRole('group', { name: 'Stop every running branch now?' });
    // Issue 29: stopping no longer makes the fork undecidable, and the confirmation says exactly what it leaves.
    expect(confirm).toHaveTextContent('those branches fail STOPPED_BY_OPERATOR and will have no verified result, so they cannot be selected');
    expect(confirm).toHaveTextContent('the fork can still be decided from a branch whose verifier judged its result (with your typed acknowledgement when fewer than two did)');
    expect(confirm).toHaveTextContent('If none did, nothing can be selected or landed.');
    expect(onstop).not.toHaveBeenCalled();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Confirm STOP of every branch' }));
    expect(onstop).toHaveBeenCalledOnce();
  });
});
