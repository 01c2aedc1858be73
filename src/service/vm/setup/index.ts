// A VM's creation and its setup script (SPEC §4): the same in every runtime.
export { createVm } from './create-vm.js';
export { runSetupScript, shortLine, SETUP_LOG } from './setup-script.js';
