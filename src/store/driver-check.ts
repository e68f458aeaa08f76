/**
 * The check `createSessionStore` makes of the driver it is given: the required session primitives
 * are there, and each capability is declared whole — so that a third-party driver missing a method
 * fails at once with a typed error naming it, not with a `TypeError` on its first use.
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** The methods every driver implements (`SessionDriver`). */
export const REQUIRED_DRIVER_METHODS = [
  'readHead',
  'readAll',
  'readRange',
  'append',
  'replace',
  'list',
  'remove',
  'close',
] as const;

/** The optional capability interfaces, by the methods that declare each. */
export const DRIVER_CAPABILITIES = {
  purge: ['purgeExpired'],
  values: ['readValues', 'writeValues'],
  textSearch: ['searchText'],
  changeFeed: ['watchChanges'],
  forget: ['forgetUser'],
  ping: ['ping'],
  marks: ['listMarks'],
  tail: ['replaceTail'],
  readAt: ['readRecordsAt'],
} as const;

/** A capability a driver may declare. */
export type DriverCapability = keyof typeof DRIVER_CAPABILITIES;

function isFunction(driver: object, method: string): boolean {
  return typeof (driver as Record<string, unknown>)[method] === 'function';
}

/** Whether `driver` declares `capability` (implements every method of it). */
export function hasCapability(driver: object, capability: DriverCapability): boolean {
  return DRIVER_CAPABILITIES[capability].every((method) => isFunction(driver, method));
}

/** Returns the driver's name when `driver` is a usable driver; otherwise `INVALID_ARGUMENT` saying what is missing. */
export function checkDriver(driver: unknown): string {
  if (typeof driver !== 'object' || driver === null)
    throw new InvalidInputError('INVALID_ARGUMENT', 'createSessionStore needs a driver object');
  const name = (driver as { name?: unknown }).name;
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', 'createSessionStore: the driver needs a non-empty string name');
  const missing = REQUIRED_DRIVER_METHODS.filter((method) => !isFunction(driver, method));
  if (missing.length > 0) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${name}: the driver does not implement ${missing.join(', ')} (required of every driver)`,
      {
        details: { store: name, missing },
      },
    );
  }
  for (const [capability, methods] of Object.entries(DRIVER_CAPABILITIES)) {
    const present = methods.filter((method) => isFunction(driver, method));
    if (present.length > 0 && present.length < methods.length) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${name}: the driver implements ${present.join(', ')} but not ${methods.filter((method) => !present.includes(method)).join(', ')}: the ${capability} capability is declared whole or not at all`,
        {
          details: { store: name, capability },
        },
      );
    }
  }
  const capabilities = (driver as { capabilities?: unknown }).capabilities;
  if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null)) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: the driver's capabilities must be an object of flags`);
  }
  return name;
}
