export type { CreatedToken } from './token-service.ts';
export { hashSecret, TokenService } from './token-service.ts';
