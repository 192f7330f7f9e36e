import './lib/zod-jitless';
import { mount } from 'svelte';
import App from './App.svelte';
import { connectClient } from './lib/client';
import { theme } from './lib/theme.svelte';
import './app.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
theme.apply();
mount(App, { target, props: { client: connectClient(window) } });
