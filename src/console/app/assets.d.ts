/** esbuild bundles imported stylesheets into the console's CSS file (../bundle.ts). */
declare module '*.css';
