// The plugin host (the Cordis idea): every registration is an effect a plugin's disposal undoes.
export { createPluginHost, type PluginHost } from './host.js';
export { Context, PluginError, type Plugin, type PluginApply, type PluginHandle } from './context.js';
export { Scope } from './scope.js';
