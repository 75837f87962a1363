/**
 * @module
 * ajv and its formats, loaded only when a validator is first compiled (`import()` of this module):
 * a chain or a config that does not validate never loads them.
 */
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

export const ajvEngines = { Ajv, Ajv2020, addFormats: formats.default };

export type AjvEngines = typeof ajvEngines;
