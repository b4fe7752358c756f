// Bundles the extension into one file, extension/dist/extension.js, with
// vscode-languageclient inside it, so the package needs no node_modules.
//   node extension/esbuild.mjs            one build
//   node extension/esbuild.mjs --watch    rebuild on change, with source maps
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';

const watch = process.argv.includes('--watch');
const here = fileURLToPath(new URL('.', import.meta.url));

const options = {
  entryPoints: [`${here}src/extension.ts`],
  outfile: `${here}dist/extension.js`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: !watch,
  sourcemap: watch ? 'inline' : false,
  logLevel: 'info',
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
