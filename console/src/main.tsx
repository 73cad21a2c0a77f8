import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './i18n';
import { App } from './app/App';

// The first render waits for the stored language's dictionaries (Italian and French are loaded on
// demand), so nobody sees English first; if they cannot be loaded the console renders in English.
void i18nReady
  .catch(() => undefined)
  .then(() =>
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
