import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './theme/tokens.css';
import './theme/base.css';
import './theme/controls.css';
import { App } from './App.tsx';
import { applyTheme, followSystemTheme } from './theme/theme.ts';
import { registerAppShell } from './offline/appShell.ts';

// Before the first render, so the page never flashes the other theme.
applyTheme();
followSystemTheme();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The app shell for reloads without network, where the origin allows a service worker.
registerAppShell();
