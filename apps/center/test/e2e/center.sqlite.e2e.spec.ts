// End-to-end over real HTTP against a Center on SQLite (requirement IDs in test names).
import { centerE2e } from './center-e2e';

centerE2e('sqlite', 'SQLite');
