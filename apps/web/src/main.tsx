import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './theme/tokens.css';
import './theme/base.css';
import './theme/controls.css';
import './i18n/rtl.css';
import { I18nProvider } from '@lingui/react';
import { App } from './App.tsx';
import { i18n, startLocale } from './i18n/i18n.ts';
import { applyTheme, followSystemTheme } from './theme/theme.ts';
import { registerAppShell } from './offline/appShell.ts';

// Before the first render, so the page never flashes the other theme.
applyTheme();
followSystemTheme();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// The first render waits for the language's catalog (English is in this bundle; another is one
// small request), so the page never shows one language and then another.
void startLocale().then(() =>
  createRoot(root).render(
    <StrictMode>
      <I18nProvider i18n={i18n}>
        <App />
      </I18nProvider>
    </StrictMode>,
  ),
);

// The app shell for reloads without network, where the origin allows a service worker.
registerAppShell();
