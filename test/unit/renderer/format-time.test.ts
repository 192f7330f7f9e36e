import { afterEach, describe, expect, it, vi } from 'vitest';

const RealDateTimeFormat = Intl.DateTimeFormat;
afterEach(() => {
  Intl.DateTimeFormat = RealDateTimeFormat;
  vi.resetModules();
});

/** Counts the date formatters built from now on (the real ones, so every format stays real). */
function countFormatters(): { readonly made: number } {
  const counter = { made: 0 };
  Intl.DateTimeFormat = new Proxy(RealDateTimeFormat, { construct: (target, args) => ((counter.made += 1), Reflect.construct(target, args)) });
  return counter;
}

describe('formatTime', () => {
  it('builds no date formatter when loaded, and one only, however many times it formats', async () => {
    const counter = countFormatters();
    const { formatTime } = await import('../../../renderer/src/lib/format');
    expect(counter.made).toBe(0);
    const first = formatTime('2026-12-04T18:06:00Z');
    formatTime('2026-12-05T09:30:00Z');
    expect(counter.made).toBe(1);
    expect(first).toBe(new RealDateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date('2026-12-04T18:06:00Z')));
  });

  it('gives back a value that is not a time as it came, without building a formatter', async () => {
    const counter = countFormatters();
    const { formatTime } = await import('../../../renderer/src/lib/format');
    expect(formatTime('not a time')).toBe('not a time');
    expect(counter.made).toBe(0);
  });
});
