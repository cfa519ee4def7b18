/** The tool registry: adding a tool is one module and one line here. */

import { getModel } from './get-model.js';
import { listModelChanges } from './list-model-changes.js';
import { searchModels } from './search-models.js';
import type { ToolDefinition } from './tool.js';

export const TOOLS: readonly ToolDefinition[] = [
  listModelChanges,
  getModel,
  searchModels,
] as ToolDefinition[];
