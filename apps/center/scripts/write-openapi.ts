// npm run openapi:center (1/2): writes apps/center/openapi.json from the controllers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiText } from '../src/openapi/openapi';

writeFileSync(join(__dirname, '..', 'openapi.json'), openApiText());
console.log('wrote apps/center/openapi.json');
