/**
 * Test doubles for code that uses taoloop: `import { scriptedModel } from 'taoloop/testing'`.
 *
 * @module
 */
export {
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
  scriptedModel,
} from './scripted-model.js';
