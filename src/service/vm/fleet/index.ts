// The VMs as the commands see them (contract.ts `VmMachines`): records in, runtimes out.
export { startVmMachines, type RunningVmMachines, type VmMachinesDeps } from './vm-machines.js';
