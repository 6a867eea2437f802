/**
 * What the code review start flow (dist/reviews.js, src/reviews/) takes from the launch flow's
 * bundle instead of carrying its own copies: the step chrome and the shared steps, the model
 * list, presets, the failure words and sending's editor side. Handed to it by the command's
 * registration (src/reviews/contribution.ts) as `launchBundle().reviewParts`.
 */
export { showInput, showPick } from './quickInput';
export { emailStep, inputValue, separator, webhookStep } from './formSteps';
export { loadModelCatalog } from './modelList';
export { defaultUserEmail } from './userEmail';
export { currentClient, launchSubmitUi, reportFailure } from './launchSending';
export { describeStartFailure } from './common/failure';
export { emailModelsKey, isAuthoritative, knownModelsForValidation, pushRecent, reviveIdList } from './common/models';
export { checkPreset, parsePresets } from './common/presets';
