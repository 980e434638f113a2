import type english from './locales/en.json';

// Message ids are English's keys: a typo or a removed key does not compile.
declare module '@lingui/core' {
  interface Register {
    messageIds: keyof typeof english;
  }
}
