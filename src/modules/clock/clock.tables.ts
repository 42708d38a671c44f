/** The service clock's offset from the real clock (one row). */
export interface ServiceClockTable {
  id: number;
  offset_seconds: number;
}

export interface ClockTables {
  service_clock: ServiceClockTable;
}
