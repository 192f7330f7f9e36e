import type { GatewayApi } from '../../../../shared/sandbox/containment-policy';
import { anthropicMessages } from './anthropic-messages';
import type { GatewayDialect } from './dialect';
import { geminiGenerateContent } from './gemini-generate-content';
import { openAiChatCompletions } from './openai-chat-completions';
import { openAiResponses } from './openai-responses';

/** Every wire dialect the provider gateway speaks, by the contract's `rule.api`. */
export const DIALECTS: Readonly<Record<GatewayApi, GatewayDialect>> = {
  'anthropic-messages': anthropicMessages,
  'openai-responses': openAiResponses,
  'gemini-generate-content': geminiGenerateContent,
  'openai-chat-completions': openAiChatCompletions,
};
