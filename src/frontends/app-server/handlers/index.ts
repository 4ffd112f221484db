/**
 * The handler of every client method, type-checked against the method table. Loaded on the
 * first request after initialize (see session.ts).
 */

import type { ClientMethod, ParamsOf, ResultOf } from "../protocol/client-requests.js";
import {
  addConversationListener,
  getAuthStatus,
  interruptConversation,
  listConversations,
  newConversation,
  removeConversationListener,
  resumeConversation,
  sendUserMessage,
  sendUserTurn,
} from "../v1/conversations.js";
import {
  accountLoginCancel,
  accountLoginStart,
  accountLogout,
  accountRateLimitsRead,
  accountRead,
} from "./account.js";
import { approveGuardianDeniedAction } from "./auto-review.js";
import { collaborationModeList } from "./collaboration-modes.js";
import { commandExec, commandExecResize, commandExecTerminate, commandExecWrite } from "./command-exec.js";
import { threadCompactStart } from "./compact.js";
import { configBatchWrite, configRead, configValueWrite, mcpServerReload } from "./config.js";
import type { HandlerContext } from "./context.js";
import { configRequirementsRead, experimentalFeatureList } from "./features.js";
import {
  fsCopy,
  fsCreateDirectory,
  fsGetMetadata,
  fsReadDirectory,
  fsReadFile,
  fsRemove,
  fsWriteFile,
} from "./fs.js";
import { fsUnwatch, fsWatch } from "./fs-watch.js";
import {
  fuzzyFileSearch,
  fuzzyFileSearchSessionStart,
  fuzzyFileSearchSessionStop,
  fuzzyFileSearchSessionUpdate,
} from "./fuzzy-file-search.js";
import { hooksList } from "./hooks.js";
import { mcpServerStatusList, modelList } from "./info.js";
import { initialize } from "./initialize.js";
import { mcpServerResourceRead, mcpServerToolCall } from "./mcp-calls.js";
import { mcpServerOauthLogin } from "./mcp-login.js";
import {
  modelProviderCapabilitiesRead,
  modelProviderDefaultSet,
  modelProviderList,
} from "./model-providers.js";
import { permissionProfileList } from "./permission-profiles.js";
import { reviewStart } from "./review.js";
import { threadShellCommand } from "./shell-command.js";
import { skillsList } from "./skills.js";
import { skillsConfigWrite, skillsExtraRootsSet } from "./skills-config.js";
import { threadGoalClear, threadGoalGet, threadGoalSet } from "./thread-goals.js";
import { threadInjectItems, threadItemsList, threadRevert } from "./thread-history.js";
import { threadDelete, threadTurnsList, threadUnsubscribe } from "./thread-lifecycle.js";
import { threadMetadataUpdate, threadSetName, threadUnarchive } from "./thread-metadata.js";
import { threadList, threadLoadedList, threadRead } from "./thread-queries.js";
import { threadArchive, threadFork, threadResume, threadRollback, threadStart } from "./threads.js";
import { turnInterrupt, turnStart, turnSteer } from "./turns.js";

export type Handler<M extends ClientMethod> = (
  params: ParamsOf<M>,
  context: HandlerContext,
) => Promise<ResultOf<M>>;

export const handlers: { [M in ClientMethod]: Handler<M> } = {
  initialize,
  "thread/start": threadStart,
  "thread/resume": threadResume,
  "thread/fork": threadFork,
  "thread/archive": threadArchive,
  "thread/rollback": threadRollback,
  "thread/delete": threadDelete,
  "thread/unsubscribe": threadUnsubscribe,
  "thread/turns/list": threadTurnsList,
  "thread/list": threadList,
  "thread/loaded/list": threadLoadedList,
  "thread/read": threadRead,
  "turn/start": turnStart,
  "turn/interrupt": turnInterrupt,
  "collaborationMode/list": collaborationModeList,
  "thread/shellCommand": threadShellCommand,
  "turn/steer": turnSteer,
  "model/list": modelList,
  "mcpServerStatus/list": mcpServerStatusList,
  "config/mcpServer/reload": mcpServerReload,
  "mcpServer/oauth/login": mcpServerOauthLogin,
  "config/read": configRead,
  "config/value/write": configValueWrite,
  "config/batchWrite": configBatchWrite,
  "command/exec": commandExec,
  "command/exec/write": commandExecWrite,
  "command/exec/resize": commandExecResize,
  "command/exec/terminate": commandExecTerminate,
  "fs/readFile": fsReadFile,
  "fs/writeFile": fsWriteFile,
  "fs/createDirectory": fsCreateDirectory,
  "fs/getMetadata": fsGetMetadata,
  "fs/readDirectory": fsReadDirectory,
  "fs/remove": fsRemove,
  "fs/copy": fsCopy,
  "fs/watch": fsWatch,
  "fs/unwatch": fsUnwatch,
  fuzzyFileSearch,
  "fuzzyFileSearch/sessionStart": fuzzyFileSearchSessionStart,
  "fuzzyFileSearch/sessionUpdate": fuzzyFileSearchSessionUpdate,
  "fuzzyFileSearch/sessionStop": fuzzyFileSearchSessionStop,
  "hooks/list": hooksList,
  "skills/list": skillsList,
  "skills/config/write": skillsConfigWrite,
  "skills/extraRoots/set": skillsExtraRootsSet,
  "thread/name/set": threadSetName,
  "thread/approveGuardianDeniedAction": approveGuardianDeniedAction,
  "thread/metadata/update": threadMetadataUpdate,
  "thread/unarchive": threadUnarchive,
  "thread/revert": threadRevert,
  "thread/items/list": threadItemsList,
  "thread/inject_items": threadInjectItems,
  "review/start": reviewStart,
  "thread/compact/start": threadCompactStart,
  "mcpServer/tool/call": mcpServerToolCall,
  "mcpServer/resource/read": mcpServerResourceRead,
  "modelProvider/list": modelProviderList,
  "modelProvider/capabilities/read": modelProviderCapabilitiesRead,
  "configRequirements/read": configRequirementsRead,
  "experimentalFeature/list": experimentalFeatureList,
  "modelProvider/default/set": modelProviderDefaultSet,
  "account/read": accountRead,
  "account/login/start": accountLoginStart,
  "account/login/cancel": accountLoginCancel,
  "account/logout": accountLogout,
  "account/rateLimits/read": accountRateLimitsRead,
  "permissionProfile/list": permissionProfileList,
  "thread/goal/set": threadGoalSet,
  "thread/goal/get": threadGoalGet,
  "thread/goal/clear": threadGoalClear,
  newConversation,
  resumeConversation,
  listConversations,
  addConversationListener,
  removeConversationListener,
  sendUserTurn,
  sendUserMessage,
  interruptConversation,
  getAuthStatus,
};
