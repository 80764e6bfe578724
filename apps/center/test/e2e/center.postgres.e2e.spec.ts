// End-to-end over real HTTP against a Center on PostgreSQL (127.0.0.1:5432, a fresh database
// per run, dropped afterwards; requirement IDs in test names).
import { centerE2e } from './center-e2e';

centerE2e('postgresql', 'PostgreSQL');
