/**
 * Moving and checking sessions between stores: export and import (lossless JSON lines), verify,
 * repair and migrate. Library functions the `chatstate` command and the server both call.
 * @module
 */
export {
  BUNDLE_SCOPES,
  comparableSession,
  ownerOf,
  readAppValues,
  readBundle,
  readValues,
  sameSession,
  writeBundle,
  type BundleScope,
  type BundleValues,
  type SessionBundle,
  type ValueMap,
  type WriteBundleOptions,
  type WriteOutcome,
} from './bundle.js';
export { compareStores, type CompareOptions, type CompareReport, type StoreDifference } from './compare.js';
export { DamageLog, openWatched, type DamageReport } from './damage.js';
export { exportBundles, exportSessions, type ExportOptions } from './export.js';
export {
  importSessions,
  itemsToInputs,
  linesToInputs,
  type ImportInput,
  type ImportProblem,
  type ImportReport,
  type ImportSessionsOptions,
} from './import.js';
export { EXPORT_FORMAT, appValuesLine, bundleLine, entryOf, parseLine, type ExportEntry } from './lines.js';
export { migrateSessions, type MigrateOptions, type MigrateReport } from './migrate.js';
export { concurrencyOf, type LongRunOptions, type Progress, type ProgressListener } from './progress.js';
export { inputsFromStream, providerOf, wireInput, type SourceOptions } from './source.js';
export { repairSessions, type RepairOptions, type RepairReport, type SessionRepair } from './repair.js';
export {
  verifySessions,
  type VerifyCheck,
  type VerifyFinding,
  type VerifyOptions,
  type VerifyReport,
} from './verify.js';
export { countSessions, everySession, selectionOf, type SessionSelection } from './walk.js';
