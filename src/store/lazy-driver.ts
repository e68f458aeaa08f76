/**
 * A driver whose module is imported on its first operation. A store factory can then be called
 * synchronously (and be exported from the package root) without loading its driver's code: the
 * root stays cheap, and each store's code loads when that store is used.
 * @module
 */
import { ChatstateError } from '../errors.js';
import { DRIVER_CAPABILITIES, hasCapability, type DriverCapability } from './driver-check.js';
import type { AnyStoreDriver, DriverCapabilities } from './driver-types.js';

/** What a driver is known to be before its module loads: its name, capabilities and the optional interfaces it implements. */
export interface DriverShape {
  readonly name: string;
  readonly capabilities?: DriverCapabilities;
  readonly implements: readonly DriverCapability[];
}

type Method = (...args: never[]) => Promise<unknown>;

/** A driver with `shape` that imports the real one through `load` on its first operation (a failed load is tried again on the next). */
export function lazyDriver(shape: DriverShape, load: () => Promise<AnyStoreDriver>): AnyStoreDriver {
  let driver: AnyStoreDriver | undefined;
  let loading: Promise<AnyStoreDriver> | undefined;
  let closed = false;
  const loaded = (): Promise<AnyStoreDriver> =>
    (loading ??= load().then(
      (real) => {
        checkShape(shape, real);
        driver = real;
        return real;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  const forward =
    (method: string): Method =>
    async (...args) => {
      const real = driver ?? (await loaded());
      return (real[method as keyof AnyStoreDriver] as unknown as Method)(...args);
    };
  const lazy: Record<string, unknown> = {
    name: shape.name,
    ...(shape.capabilities === undefined ? {} : { capabilities: shape.capabilities }),
    readHead: forward('readHead'),
    readAll: forward('readAll'),
    readRange: forward('readRange'),
    append: forward('append'),
    replace: forward('replace'),
    list: forward('list'),
    remove: forward('remove'),
    // A store closed before its first operation never loads its driver.
    close: async () => {
      if (closed) return;
      closed = true;
      if (driver === undefined && loading === undefined) return;
      await (driver ?? (await loaded())).close();
    },
  };
  for (const capability of shape.implements)
    for (const method of DRIVER_CAPABILITIES[capability]) lazy[method] = forward(method);
  return lazy as unknown as AnyStoreDriver;
}

// The shape is written down beside the factory, away from the driver: a driver that grew or lost
// a capability must fail loudly here, not behave as a different store.
function checkShape(shape: DriverShape, real: AnyStoreDriver): void {
  const declared = new Set<string>(shape.implements);
  const actual = (Object.keys(DRIVER_CAPABILITIES) as DriverCapability[]).filter((capability) =>
    hasCapability(real, capability),
  );
  const flags = (capabilities: DriverCapabilities | undefined) =>
    Object.entries(capabilities ?? {})
      .filter(([, on]) => on === true)
      .map(([flag]) => flag)
      .sort()
      .join();
  const sameCapabilities = flags(real.capabilities) === flags(shape.capabilities);
  if (
    real.name !== shape.name ||
    actual.length !== declared.size ||
    actual.some((capability) => !declared.has(capability)) ||
    !sameCapabilities
  ) {
    throw new ChatstateError('INTERNAL', `${shape.name}: the loaded driver is not the one its factory described`, {
      details: {
        expected: { ...shape, capabilities: { ...shape.capabilities } },
        actual: { name: real.name, implements: actual, capabilities: { ...real.capabilities } },
      },
    });
  }
}
