export { shared, SharedUpstream, type SharedOptions } from './shared.js';
