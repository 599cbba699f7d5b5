export type { App, AppDeps } from './app.ts';
export { buildApp } from './app.ts';
export { tokenSecretOf } from './auth.ts';
