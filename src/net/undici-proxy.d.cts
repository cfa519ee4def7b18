import type { Dispatcher } from 'undici';

export declare function createProxyAgent(proxy: string, connections: number): Dispatcher;
export declare function request(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData>;
