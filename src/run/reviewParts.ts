/** What the code review start flow borrows from dist/launch.js (`launchBundle().reviewParts`) rather than bundling its own copy. */
export { showInput, showPick } from '../base/quickInput';
export { emailStep, inputValue, separator, webhookStep } from './formSteps';
export { loadModelCatalog } from './modelList';
export { defaultUserEmail } from './userEmail';
export { currentClient, failureUi, reportFailure } from './startSending';
export { describeStartFailure } from './common/startFailure';
export { emailModelsKey, isAuthoritative, knownModelsForValidation, pushRecent, reviveIdList } from './common/models';
export { checkPreset, parsePresets } from './common/presets';
