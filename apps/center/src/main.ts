// Process entry of `arslan-center` (bundled to dist/center/center.cjs by `npm run build`).
import { main } from './cli';

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`arslan-center: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
