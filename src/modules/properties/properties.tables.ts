import type { PropertiesBaseTable } from '../../db/schema.js';

/** Tables owned by the properties module (see its migrations). */
export interface PropertyTables {
  properties: PropertiesBaseTable;
}
