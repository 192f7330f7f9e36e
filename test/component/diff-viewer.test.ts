import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import DiffViewer from '../../renderer/src/components/DiffViewer.svelte';

// Agent-written diff text is untrusted: markup in file names, hunk headers and lines must render as text.
const HOSTILE = [
  'diff --git a/<img src=x onerror=alert(1)>.ts b/<img src=x onerror=alert(1)>.ts',
  'index 1111111..2222222 100644',
  '--- a/<img src=x onerror=alert(1)>.ts',
  '+++ b/<img src=x onerror=alert(1)>.ts',
  '@@ -1,2 +1,2 @@ function <svg onload=alert(2)>',
  ' const keep = "<b>bold</b>";',
  '-const old = "<script>alert(3)</script>";',
  '+const next = "<iframe src=javascript:alert(4)></iframe>";',
  '',
].join('\n');

describe('diff viewer', () => {
  it('renders hostile diff text as text, creating no elements from it', () => {
    const { container } = render(DiffViewer, { props: { diffText: HOSTILE } });
    expect(container.querySelector('.d2h-wrapper')).not.toBeNull();
    for (const tag of ['img', 'script', 'iframe', 'b']) expect(container.querySelectorAll(tag)).toHaveLength(0);
    // diff2html draws its own icons as svg; none carries an event handler from the diff.
    expect(container.querySelectorAll('[onerror], [onload]')).toHaveLength(0);
    const text = container.textContent ?? '';
    expect(text).toContain('<script>alert(3)</script>');
    expect(text).toContain('<iframe src=javascript:alert(4)></iframe>');
    expect(text).toContain('<svg onload=alert(2)>');
    expect(text).toContain('<img src=x onerror=alert(1)>.ts');
  });

  it('says so when the branch changed nothing', () => {
    render(DiffViewer, { props: { diffText: '' } });
    expect(screen.getByText('The branch changed no files.')).toBeInTheDocument();
  });
});
