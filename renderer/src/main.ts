import './lib/zod-jitless';
import { mount } from 'svelte';
import App from './App.svelte';
import { connectClient, missingAccessToken } from './lib/client';
import { theme } from './lib/theme.svelte';
import MissingTokenView from './views/MissingTokenView.svelte';
import './app.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
theme.apply();
if (missingAccessToken(window)) mount(MissingTokenView, { target });
else mount(App, { target, props: { client: connectClient(window) } });
