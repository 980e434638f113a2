import { useLingui } from '@lingui/react';
import type { I18n } from '@lingui/core';

/**
 * The translate function for a component: `t('home.start')`, `t('roster.count', { count })`. The
 * component re-renders when the language changes. Ids are typed: they are English's keys.
 */
export function useT(): I18n['_'] {
  return useLingui()._;
}
