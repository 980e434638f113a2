import { fileURLToPath } from 'node:url';
import { lingui } from '@lingui/vite-plugin';
import type { PluginOption } from 'vite';

/**
 * Compiles a catalog imported as `src/i18n/locales/xx.json?lingui` (Lingui's Vite plugin), for the
 * build and for the web unit tests alike; a malformed ICU message fails either.
 */
export function catalogPlugin(): PluginOption {
  return lingui({ failOnCompileError: true, configPath: fileURLToPath(new URL('./lingui.config.ts', import.meta.url)) });
}
