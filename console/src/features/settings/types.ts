import type { Result } from '../../api/answers';

type Item<T> = T extends (infer I)[] ? I : never;

export type OrganizationItem = Item<Result<'getOrganizations'>>;
export type Capacity = Result<'getOrganizationsCapacity'>;
export type GroupItem = Item<Result<'getGroup'>>;
export type GroupTable = Item<Result<'getAdminGroupUsers'>>;
export type GroupTableUser = Item<GroupTable['users']>;
export type UserItem = Item<Result<'getAdminUsers'>>;
export type Username = Item<Result<'getAdminUsername'>>;
export type PlatformConfiguration = Result<'getIlluminaConfiguration'>;
/** Quota values as the API stores them: CPU in millicores, memory and disk in MB. */
export interface Resources {
  cpu: number;
  memory: number;
  disk: number;
}
