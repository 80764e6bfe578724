// Public entry of @arslan/center-data-access: Prisma repositories and the audit file.
export { openCenterStore, seedGrantsForTest, type StoreTarget } from './prisma-store';
export { migrateSqlite, migratePostgres, type MigrationResult } from './migrate';
export { FileAuditSink, verifyAuditFile } from './audit-file';
