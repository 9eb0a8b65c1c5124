/**
 * Types for `main.js`, the playground page's script (plain browser JavaScript, so that this Node
 * project's type check needs no DOM types).
 *
 * @module
 */
import type { createApi } from './api.js';
import type { createCompare } from './compare.js';
import type { createConfigForm } from './config-form.js';
import type { findPageElements } from './elements.js';
import type { createForkDialog } from './fork-dialog.js';
import type { createInPageRun } from './in-page.js';
import type { createMarkdown } from './markdown.js';
import type { createRunActions } from './run-actions.js';
import type { createRunDisplay } from './run-display.js';
import type { createRunsList } from './runs-list.js';
import type { createServerRun } from './server-run.js';
import type { createApprovals } from './trace/approvals.js';
import type { createCounters } from './trace/counters.js';
import type { createTraceEvents } from './trace/events.js';
import type { createTraceHelpers } from './trace/helpers.js';
import type { createInspector } from './trace/inspector.js';
import type { createLiveText } from './trace/live.js';
import type { createRunEnd } from './trace/run-end.js';
import type { createTraceSteps } from './trace/steps.js';
import type { createTimeline } from './trace/timeline.js';
import type { createTurns } from './trace/turns.js';
import type { createTraceView } from './trace/view.js';

/** The factories the page script is given, by the names it calls them by (see `page.ts`). */
export interface ClientParts {
  findPageElements: typeof findPageElements;
  createApi: typeof createApi;
  createConfigForm: typeof createConfigForm;
  createRunsList: typeof createRunsList;
  createRunDisplay: typeof createRunDisplay;
  createServerRun: typeof createServerRun;
  createInPageRun: typeof createInPageRun;
  createRunActions: typeof createRunActions;
  createTraceView: typeof createTraceView;
  createTraceHelpers: typeof createTraceHelpers;
  createTraceSteps: typeof createTraceSteps;
  createLiveText: typeof createLiveText;
  createCounters: typeof createCounters;
  createTimeline: typeof createTimeline;
  createInspector: typeof createInspector;
  createApprovals: typeof createApprovals;
  createTurns: typeof createTurns;
  createRunEnd: typeof createRunEnd;
  createTraceEvents: typeof createTraceEvents;
  createMarkdown: typeof createMarkdown;
  createCompare: typeof createCompare;
  createForkDialog: typeof createForkDialog;
}

/**
 * Runs the playground page. Only ever called in the browser, from the source text `page.ts` serves, with
 * every factory of the script in `parts`.
 */
export declare function playgroundClient(parts: ClientParts): void;
