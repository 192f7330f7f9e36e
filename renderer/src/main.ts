// First, so every schema built later in this window is jitless (zod-jitless.ts says why).
import './lib/zod-jitless';
// Then at once, so the first read is on its way while everything below is evaluated.
import { thisWindowTransport } from './window-transport';
import { mount } from 'svelte';
import App from './App.svelte';
import { createClient } from './lib/client';
import { browserNotifier, forkAlerts } from './lib/fork-alerts.svelte';
import { theme } from './lib/theme.svelte';
import { missingAccessToken } from './lib/transport';
import MissingTokenView from './views/MissingTokenView.svelte';
import './app.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
theme.apply();
if (missingAccessToken(window)) mount(MissingTokenView, { target });
else {
  const client = createClient(thisWindowTransport);
  // The alerts hold the window's fork list from its first moment (the Forks view shares it). The
  // desktop shell notifies from main (no web permission needed); the web host asks the browser.
  forkAlerts.start(client, client.app('chooseRepositoryFolder') === null ? browserNotifier(window) : null);
  mount(App, { target, props: { client } });
}
