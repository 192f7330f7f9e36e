import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { missingAccessToken } from '../../renderer/src/lib/transport';
import MissingTokenView from '../../renderer/src/views/MissingTokenView.svelte';

const pageAt = (search: string, bridge?: object): Window & { citadel?: unknown } =>
  ({ location: { search }, citadel: bridge }) as unknown as Window & { citadel?: unknown };

describe('a page without its access token', () => {
  it('is recognised only on the web host and only without a token', () => {
    expect(missingAccessToken(pageAt(''))).toBe(true);
    expect(missingAccessToken(pageAt('?other=1'))).toBe(true);
    expect(missingAccessToken(pageAt('?token=abc'))).toBe(false);
    expect(missingAccessToken(pageAt('', {}))).toBe(false);
  });

  it('says how to open Mission Control instead of showing an error code', () => {
    render(MissingTokenView);
    expect(screen.getByRole('heading', { level: 1, name: 'Open Mission Control from its link' })).toBeInTheDocument();
    expect(screen.getByRole('main')).toHaveTextContent('citadel mission-control printed when it started');
    expect(screen.queryByText(/INTERNAL_ERROR/)).toBeNull();
  });
});
