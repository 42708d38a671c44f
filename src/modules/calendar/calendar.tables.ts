/** Tables owned by the calendar module (see its migrations). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CalendarTables {}
