/** The web console at `/console` (docs/console.md): its browser app, bundled on first use. */
export { ASSET_PREFIX, type ConsoleAsset, type ConsoleBundle, consoleBundle, etagOf } from './bundle.ts';
