// A catalog imported with `?lingui` arrives compiled by @lingui/vite-plugin.
declare module '*.json?lingui' {
  export const messages: import('@lingui/core').Messages;
}
