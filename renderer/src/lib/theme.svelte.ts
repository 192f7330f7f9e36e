export type ThemeChoice = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'citadel.theme';
const CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

function storedChoice(): ThemeChoice {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  return CHOICES.find((choice) => choice === stored) ?? 'system';
}

/**
 * The colour theme: "system" follows prefers-color-scheme; "light" and "dark" override it through
 * `data-theme` on the root element, which the stylesheet's `color-scheme` rules read.
 */
class Theme {
  choice = $state<ThemeChoice>(storedChoice());

  /** The diff viewer's colour scheme, matching the page's. */
  get diffScheme(): 'auto' | 'light' | 'dark' {
    return this.choice === 'system' ? 'auto' : this.choice;
  }

  next(): void {
    this.set(CHOICES[(CHOICES.indexOf(this.choice) + 1) % CHOICES.length] ?? 'system');
  }

  set(choice: ThemeChoice): void {
    this.choice = choice;
    globalThis.localStorage?.setItem(STORAGE_KEY, choice);
    this.apply();
  }

  apply(): void {
    const root = globalThis.document?.documentElement;
    if (root === undefined) return;
    if (this.choice === 'system') delete root.dataset.theme;
    else root.dataset.theme = this.choice;
  }
}

export const theme = new Theme();
