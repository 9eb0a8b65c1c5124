/**
 * The Restate SDK is an optional peer dependency: `taoloop worker --restate` loads it first, and says the
 * one command that installs it when it is missing rather than failing on a bare "Cannot find package".
 *
 * @module
 */
import { isModuleNotFound } from '../models/providers.js';
import { UsageError } from './errors.js';

/** The Restate SDK as `npm install` should add it: the version taoloop is built and tested with. */
export const RESTATE_SDK_PACKAGE = '@restatedev/restate-sdk@1.14.5';

/**
 * Loads the Restate SDK (`load` is for tests).
 *
 * @throws {UsageError} when it is not installed: `taoloop worker --restate needs the Restate SDK, which is
 *   not installed: run \`npm install @restatedev/restate-sdk@1.14.5\`.`; other load errors as they are.
 */
export async function requireRestateSdk(
  load: () => Promise<unknown> = () => import('@restatedev/restate-sdk'),
) {
  try {
    await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new UsageError(
      `taoloop worker --restate needs the Restate SDK, which is not installed: run \`npm install ${RESTATE_SDK_PACKAGE}\`.`,
    );
  }
}
