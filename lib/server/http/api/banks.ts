/** Banks for the API: list, and bundle import/export, each the one service (lib/server/services/banks.ts). */
export { bankList, exportBank, importBank } from "../../services/banks";
