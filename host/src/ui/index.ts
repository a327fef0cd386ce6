// The page for the person in the loop (/ui on `serve --http`): pending approvals live, recent
// calls from the audit log, and the tools and policy set in force.
export { uiMount } from './mount.js';
export { CSP } from './assets.js';
export type { UiSources, InstalledInfo, PolicyInfo } from './sources.js';
