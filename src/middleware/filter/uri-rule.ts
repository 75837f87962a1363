/**
 * @module
 * `filter`'s rule on resource uris, judged on every form of a uri ({@link uriForms}): a deny that
 * any form matches wins, and an allow must hold for every form a server could read it as.
 */
import { matchAny } from '../../chain/glob.js';
import { uriPatternForms, type UriForms } from './normalize-uri.js';
import type { FilterRule } from './options.js';

/** The names listed under a form of a uri (none when the server lists it under none). */
export type NamesOf = (form: string) => readonly string[];

/** A resource rule over uri forms and the names the server lists them under. */
export interface UriRule {
  /**
   * Visible when no form (raw, normal, decoded) and no name listed under one is denied, and,
   * with an allow list, both the normal and the decoded form are allowed, each by itself or by
   * the names listed under it (all of them, when several resources share the form).
   */
  visible(forms: UriForms, namesOf: NamesOf): boolean;
  /** The verdict by the uri alone, or `undefined` when the names listed under it could change it. */
  byUri(forms: UriForms): boolean | undefined;
}

/** Compiles a rule's globs for uris; each also matches as its own normal form ({@link uriPatternForms}). */
export function uriRule({ allow = [], deny = [] }: FilterRule): UriRule {
  const allows = matchAny(withNormalForms(allow));
  const denies = matchAny(withNormalForms(deny));
  const allowAll = allow.length === 0;

  const denied = (forms: UriForms): boolean => denies(forms.raw) || denies(forms.normal) || denies(forms.decoded);
  const allowedForm = (form: string, namesOf: NamesOf): boolean => {
    if (allows(form)) return true;
    const names = namesOf(form);
    return names.length > 0 && names.every(allows);
  };
  return {
    visible(forms, namesOf) {
      if (denied(forms) || [forms.normal, forms.decoded].some((form) => namesOf(form).some(denies))) return false;
      return allowAll || (allowedForm(forms.normal, namesOf) && allowedForm(forms.decoded, namesOf));
    },
    byUri(forms) {
      if (denied(forms)) return false;
      if (deny.length > 0) return undefined;
      return allowAll || (allows(forms.normal) && allows(forms.decoded)) ? true : undefined;
    },
  };
}

/** `patterns` and their normal forms. */
function withNormalForms(patterns: readonly string[]): string[] {
  return [...new Set(patterns.flatMap(uriPatternForms))];
}
