/**
 * Generated from docs/openapi.json by `npm run sdk:generate` (openapi-typescript). Do not edit:
 * a test regenerates it and fails when it differs from this file.
 */

export interface paths {
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling integration */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List covered properties */
        get: operations["listProperties"];
        put?: never;
        /** Create a property (requires Idempotency-Key) */
        post: operations["createProperty"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Update up to 25 properties */
        put: operations["bulkUpdateProperties"];
        /** Create up to 25 properties (requires Idempotency-Key) */
        post: operations["bulkCreateProperties"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties/{property}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One covered property (the Property block with its input groups) */
        get: operations["getProperty"];
        /** Update a property (present groups applied, absent ones untouched) */
        put: operations["updateProperty"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties/{property}/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Availability snapshot of a property for a window of nights
         * @description Window of at most 92 nights, `to` at most 730 days ahead of today. `data.sequence` is the watermark: set the cursor for this property and type to it; events with a higher sequence apply on top.
         */
        get: operations["getAvailabilitySnapshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties/{property}/rates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Rates snapshot of a property for a window of nights
         * @description Window of at most 92 nights, `to` at most 730 days ahead of today. `data.sequence` is the watermark: set the cursor for this property and type to it; events with a higher sequence apply on top.
         */
        get: operations["getRatesSnapshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/properties/{property}/restrictions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Restrictions snapshot of a property for a window of nights
         * @description Window of at most 92 nights, `to` at most 730 days ahead of today. `data.sequence` is the watermark: set the cursor for this property and type to it; events with a higher sequence apply on top.
         */
        get: operations["getRestrictionsSnapshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Replay recorded events after a cursor (30 days) */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a full re-sync through the webhook path (one per 24 hours) */
        post: operations["requestSync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List bookings, oldest change first */
        get: operations["listBookings"];
        put?: never;
        /** Create a booking (requires Idempotency-Key) */
        post: operations["createBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bookings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One booking by its id */
        get: operations["getBooking"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a booking */
        patch: operations["updateBooking"];
        trace?: never;
    };
    "/bookings/external/{external_booking_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One booking by the partner’s external_booking_id (URL-encoded) */
        get: operations["getBookingByExternalId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a booking by external_booking_id */
        patch: operations["updateBookingByExternalId"];
        trace?: never;
    };
    "/bookings/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a booking (idempotent) */
        post: operations["cancelBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bookings/external/{external_booking_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a booking by external_booking_id (idempotent) */
        post: operations["cancelBookingByExternalId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The integration's latest webhook delivery attempts, newest first
         * @description Attempts of this integration’s own events (connectivity pings left out), kept 30 days. Page with `before` = `cursor.next_before` until `has_more` is false. Rate tier: 60 a minute.
         */
        get: operations["getDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host makes a booking on a covered property (requires Idempotency-Key)
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records booking.changed and availability.changed for the held nights. Availability is checked as for any host booking (409 UNAVAILABLE).
         */
        post: operations["postSandboxPropertiesByPropertyBookings"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/bookings/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host cancels a booking on a covered property (idempotent)
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records booking.changed and availability.changed for the freed nights; a booking already cancelled answers 200 unchanged and records nothing.
         */
        post: operations["postSandboxBookingsByIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/block": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host blocks nights
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records availability.changed per calendar month touched.
         */
        post: operations["postSandboxPropertiesByPropertyBlock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/unblock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host lifts blocks (either scope) from nights
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records availability.changed per calendar month touched.
         */
        post: operations["postSandboxPropertiesByPropertyUnblock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/rate-override": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host overrides the price of nights
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records rates.changed per calendar month touched (source "override").
         */
        post: operations["postSandboxPropertiesByPropertyRateOverride"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/restriction-override": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host sets restrictions of nights (min stay, stop sell, …)
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records restrictions.changed per calendar month touched.
         */
        post: operations["postSandboxPropertiesByPropertyRestrictionOverride"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/properties/{property}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: the host archives a covered property
         * @description Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property). Records property.changed (status archived); archiving an archived property records nothing.
         */
        post: operations["postSandboxPropertiesByPropertyArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Sandbox: the brand’s clock
         * @description The clock is the calling integration’s brand’s own: it drives that brand’s data (today for bookings and snapshots, the horizon and its roll, events’ created_at and retention, the 24-hour re-sync window, the delivery retry ladder, pause and probe). Rate limits, staff tokens, leases, idempotency records and webhook signature timestamps stay on the service clock, so receivers verify every delivery.
         */
        get: operations["getSandboxClock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/clock/advance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: move the brand’s clock forward by whole days
         * @description The clock is the calling integration’s brand’s own: it drives that brand’s data (today for bookings and snapshots, the horizon and its roll, events’ created_at and retention, the 24-hour re-sync window, the delivery retry ladder, pause and probe). Rate limits, staff tokens, leases, idempotency records and webhook signature timestamps stay on the service clock, so receivers verify every delivery. Forward only. The horizon roll and event retention that fell due run before the answer; deliveries and retries within about a second.
         */
        post: operations["postSandboxClockAdvance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "availability.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of availability.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["availabilityChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "rates.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of rates.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["ratesChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "restrictions.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of restrictions.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["restrictionsChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "inventory.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of inventory.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["inventoryChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "property.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of property.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["propertyChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "booking.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delivery of booking.changed
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["bookingChangedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    ping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connectivity ping to a paused integration
         * @description Deliveries go strictly in sequence order, one at a time; the next waits for a 2xx within the response deadline (10 s by default). Verify the signature over the raw body bytes before parsing.
         */
        post: operations["pingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        NightlyPriceInput: {
            /** @description INR per night */
            base_price: number;
            /** @description Guests included in base_price; defaults to occupancy.max_guests */
            per_night_occupancy?: number;
            /** @description INR per extra adult per night; default 0 */
            extra_adult_price?: number;
            /** @description INR per extra child per night; default 0 */
            extra_child_price?: number;
        };
        NightlyPriceUpdate: {
            /** @description INR per night */
            base_price?: number;
            /** @description Guests included in base_price; defaults to occupancy.max_guests */
            per_night_occupancy?: number;
            /** @description INR per extra adult per night; default 0 */
            extra_adult_price?: number;
            /** @description INR per extra child per night; default 0 */
            extra_child_price?: number;
        };
        AddressInput: {
            address_line_1: string;
            address_line_2?: string | null;
            landmark?: string | null;
            city: string;
            state: string;
            /** @description Defaults to India */
            country?: string | null;
            pin_code: string;
            latitude?: number | null;
            longitude?: number | null;
            /** @description Derived from the other address fields when omitted */
            formatted_address?: string | null;
        };
        AddressUpdate: {
            address_line_1?: string;
            address_line_2?: string | null;
            landmark?: string | null;
            city?: string;
            state?: string;
            /** @description Defaults to India */
            country?: string | null;
            pin_code?: string;
            latitude?: number | null;
            longitude?: number | null;
            /** @description Derived from the other address fields when omitted */
            formatted_address?: string | null;
        };
        PropertyCreateInput: {
            /** @description The partner's id for the property; unique within the integration */
            external_id?: string | null;
            name: string;
            /**
             * @description Never coerced: any other value is refused
             * @enum {string|null}
             */
            property_type?: "villa" | "apartment" | "farm_stay" | "home_stay" | "hostel" | "bed_and_breakfast" | "resort" | "cottage" | "guest_house" | "room" | "suite" | "dorm" | "hotel" | null;
            /**
             * @description vacation_rental or resort_hotel
             * @enum {string|null}
             */
            property_category?: "vacation_rental" | "resort_hotel" | null;
            description: string;
            address: components["schemas"]["AddressInput"];
            space: {
                /** @description 0 to 500 */
                bedrooms: number;
                /** @description 0 to 500 */
                washrooms: number;
            };
            occupancy: {
                /** @description Default 1 */
                min_guests?: number;
                /** @description Not below min_guests */
                max_guests: number;
            };
            /** @description weekday: Sunday to Thursday nights; weekend: Friday and Saturday nights */
            pricing: {
                weekday: components["schemas"]["NightlyPriceInput"];
                weekend: components["schemas"]["NightlyPriceInput"];
            };
            features?: {
                is_private?: boolean;
                is_pet_friendly?: boolean;
                max_pets?: number | null;
                /** @description INR per pet */
                pet_charges?: number | null;
                is_veg?: boolean;
                is_smoking_in_rooms?: boolean;
            };
            /** @description Omitted: one default unit named after the property */
            units?: {
                /** @description Unique within the request */
                name: string;
                /** @description Becomes external_unit_id; unique within the integration */
                external_id?: string | null;
                code?: string | null;
                /** @description Informational; not enforced */
                max_occupancy?: number | null;
            }[];
        };
        PropertyUpdateInput: {
            /** @description Re-maps the id; null clears it */
            external_id?: string | null;
            name?: string;
            /**
             * @description Never coerced: any other value is refused
             * @enum {string|null}
             */
            property_type?: "villa" | "apartment" | "farm_stay" | "home_stay" | "hostel" | "bed_and_breakfast" | "resort" | "cottage" | "guest_house" | "room" | "suite" | "dorm" | "hotel" | null;
            /**
             * @description vacation_rental or resort_hotel
             * @enum {string|null}
             */
            property_category?: "vacation_rental" | "resort_hotel" | null;
            description?: string;
            address?: components["schemas"]["AddressUpdate"];
            space?: {
                /** @description 0 to 500 */
                bedrooms?: number;
                /** @description 0 to 500 */
                washrooms?: number;
            };
            occupancy?: {
                /** @description Default 1 */
                min_guests?: number;
                /** @description Not below min_guests */
                max_guests?: number;
            };
            /** @description weekday: Sunday to Thursday nights; weekend: Friday and Saturday nights */
            pricing?: {
                weekday?: components["schemas"]["NightlyPriceUpdate"];
                weekend?: components["schemas"]["NightlyPriceUpdate"];
            };
            features?: {
                is_private?: boolean;
                is_pet_friendly?: boolean;
                max_pets?: number | null;
                /** @description INR per pet */
                pet_charges?: number | null;
                is_veg?: boolean;
                is_smoking_in_rooms?: boolean;
            };
            /** @description Merge list: unmentioned units are untouched */
            units?: {
                /** @description Addresses a unit by service id */
                inventory_id?: number;
                /** @description Addresses a unit by alias; an unknown alias creates a unit. With inventory_id: sets or changes the alias; null clears it */
                external_id?: string | null;
                /** @description Unique within the request */
                name?: string;
                code?: string | null;
                /** @description Informational; not enforced */
                max_occupancy?: number | null;
                /** @description false takes the unit off sale (never the default unit); true restores it */
                is_active?: boolean;
            }[];
        };
        BookingUnitInput: {
            /** @description The integration's unit alias */
            external_unit_id?: string;
            /** @description The unit by service id */
            inventory_id?: number;
            /** @description 1 to 50; default 1 */
            adults?: number;
            /** @description 0 to 50; default 0 */
            children?: number;
            /**
             * @description EP (room only, default), CP, MAP or AP
             * @enum {string}
             */
            meal_plan?: "EP" | "CP" | "MAP" | "AP";
        };
        BookingCreateInput: {
            /** @description The partner’s id for the booking, unique within the integration */
            external_booking_id: string;
            /** @description The property by the partner’s external_id or by doorloom_id */
            property: {
                external_id?: string;
                doorloom_id?: number;
            };
            /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
            units: components["schemas"]["BookingUnitInput"][];
            /**
             * Format: date
             * @description YYYY-MM-DD, not before today (Asia/Kolkata)
             * @example 2026-12-24
             */
            check_in: string;
            /**
             * Format: date
             * @description YYYY-MM-DD, exclusive; at most MAX_STAY_NIGHTS after check_in
             * @example 2026-12-24
             */
            check_out: string;
            guest: {
                name: string;
                phone_code?: string | null;
                mobile?: string | null;
            };
            pricing: {
                /** @description INR */
                total: number;
                /**
                 * @description Always INR
                 * @enum {string}
                 */
                currency?: "INR";
            };
            /**
             * @description pending or confirmed (default); both hold inventory
             * @enum {string}
             */
            status?: "pending" | "confirmed";
            notes?: string | null;
            source: {
                /** @description Cannot be changed after create */
                channel: string;
                reference?: string | null;
            };
            reason?: string | null;
            refund_note?: string | null;
        };
        BookingUpdateInput: {
            /**
             * Format: date
             * @description YYYY-MM-DD
             * @example 2026-12-24
             */
            check_in?: string;
            /**
             * Format: date
             * @description YYYY-MM-DD, exclusive
             * @example 2026-12-24
             */
            check_out?: string;
            /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
            units?: components["schemas"]["BookingUnitInput"][];
            guest?: {
                name?: string;
                phone_code?: string | null;
                mobile?: string | null;
            };
            pricing?: {
                /** @description INR */
                total?: number;
                /**
                 * @description Always INR
                 * @enum {string}
                 */
                currency?: "INR";
            };
            notes?: string | null;
            /**
             * @description A status reachable from the current one
             * @enum {string}
             */
            status?: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
            source?: {
                reference?: string | null;
                /** @description Cannot be changed: sending it is a 422 */
                channel?: unknown;
            };
            reason?: string | null;
            refund_note?: string | null;
        };
        BookingCancelInput: {
            reason?: string | null;
            refund_note?: string | null;
        };
        SyncInput: {
            /** @description Service property ids, each covered; omitted: every covered property */
            property_ids?: number[];
            /** @description Any of availability, rates, restrictions, inventory, property, or their .changed spellings; omitted: all five */
            types?: string[];
        };
        Unit: {
            inventory_id: number;
            external_unit_id: string | null;
            name: string;
            code: string | null;
            is_active: boolean;
            is_default: boolean;
            max_occupancy: number | null;
            /** @description Always false here; true only on inventory events for a retired alias */
            deleted: boolean;
        };
        PropertyBlock: {
            doorloom_id: number;
            external_id: string | null;
            /** @description active */
            coverage: string;
            name: string;
            property_type: string | null;
            /** @description active, inactive or archived */
            status: string;
            is_master: boolean;
            master_property_id: number;
            /** @description Active units only; the first created is the default */
            units: components["schemas"]["Unit"][];
        };
        Pagination: {
            page: number;
            per_page: number;
            total: number;
            last_page: number;
        };
        Cursor: {
            next_after_sequence: number;
            has_more: boolean;
        };
        Integration: {
            id: number;
            slug: string;
            name: string;
            status: "active" | "paused" | "disabled";
            brand: {
                id: number;
                name: string;
            };
            api_version: string;
            webhook: {
                configured: boolean;
                url: string | null;
                event_types: string[];
                timeout_seconds: number;
                last_sequence: number;
                undelivered_events: number;
                consecutive_failures: number;
                last_success_at: string | null;
                last_failure_at: string | null;
                paused_at: string | null;
                paused_reason: string | null;
            };
            horizon_days: number;
            covered_properties: number;
        };
        Booking: {
            id: number;
            external_booking_id: string;
            /** @description 1 at create, +1 on every change by anyone */
            revision: number;
            /**
             * @description Booking status
             * @enum {string}
             */
            status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
            property: components["schemas"]["PropertyReference"];
            units: {
                inventory_id: number;
                external_unit_id: string | null;
                adults: number;
                children: number;
                /**
                 * @description Meal plan
                 * @enum {string}
                 */
                meal_plan: "EP" | "CP" | "MAP" | "AP";
            }[];
            /**
             * Format: date
             * @example 2026-12-24
             */
            check_in: string;
            /**
             * Format: date
             * @example 2026-12-24
             */
            check_out: string;
            nights: number;
            guest: {
                name: string;
                phone_code: string | null;
                mobile: string | null;
            };
            pricing: {
                total: number;
                /** @enum {string} */
                currency: "INR";
            };
            notes: string | null;
            source: {
                channel: string;
                reference: string | null;
            };
            cancellation: {
                reason: string | null;
                refund_note: string | null;
                cancelled_at: string | null;
            } | null;
            /**
             * Format: date-time
             * @description YYYY-MM-DDTHH:mm:ss+05:30
             */
            created_at: string;
            /**
             * Format: date-time
             * @description YYYY-MM-DDTHH:mm:ss+05:30
             */
            updated_at: string;
        };
        PropertyDetail: components["schemas"]["PropertyBlock"] & {
            description: string;
            property_category: string | null;
            address: {
                address_line_1: string;
                address_line_2: string | null;
                landmark: string | null;
                city: string;
                state: string;
                country: string;
                pin_code: string;
                latitude: number | null;
                longitude: number | null;
                formatted_address: string;
            };
            space: {
                bedrooms: number;
                washrooms: number;
            };
            occupancy: {
                min_guests: number;
                max_guests: number;
            };
            pricing: {
                weekday: {
                    base_price: number;
                    per_night_occupancy: number;
                    extra_adult_price: number;
                    extra_child_price: number;
                };
                weekend: {
                    base_price: number;
                    per_night_occupancy: number;
                    extra_adult_price: number;
                    extra_child_price: number;
                };
            };
            features: {
                is_private: boolean;
                is_pet_friendly: boolean;
                max_pets: number | null;
                pet_charges: number | null;
                is_veg: boolean;
                is_smoking_in_rooms: boolean;
            };
            /**
             * Format: date-time
             * @description ISO-8601 with +05:30
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 with +05:30
             */
            updated_at: string;
        };
        DateWindow: {
            /**
             * Format: date
             * @example 2026-12-24
             */
            from: string;
            /**
             * Format: date
             * @example 2026-12-24
             */
            to: string;
        };
        PropertyReference: {
            doorloom_id: number;
            external_id: string | null;
        };
        AvailabilityPayload: {
            /** @description Active units */
            total_units: number;
            units: {
                inventory_id: number;
                external_unit_id: string | null;
                name: string;
                /** @description Nights of the window on which the unit is held or blocked everywhere */
                unavailable: string[];
            }[];
            dates: {
                /**
                 * Format: date
                 * @example 2026-12-24
                 */
                date: string;
                available_units: number;
                total_units: number;
                is_blocked: boolean;
                block_scope: ("everywhere" | "ota_only") | null;
                units_cap: number | null;
            }[];
        };
        RatesPayload: {
            /** @enum {string} */
            currency: "INR";
            gst_applicable: boolean;
            price_includes_gst: boolean;
            meal_plans: {
                code: string;
                name: string;
                adult_price: number;
                child_price: number;
            }[];
            dates: {
                /**
                 * Format: date
                 * @example 2026-12-24
                 */
                date: string;
                base_price: number;
                per_night_occupancy: number;
                extra_adult_price: number;
                extra_child_price: number;
                source: "weekday" | "weekend" | "override";
            }[];
        };
        RestrictionsPayload: {
            rules: {
                min_stay: number;
                max_stay: number;
                min_advance_days: number;
                max_advance_days: number;
            };
            dates: {
                /**
                 * Format: date
                 * @example 2026-12-24
                 */
                date: string;
                min_stay: number;
                max_stay: number;
                stop_sell: boolean;
                closed_to_arrival: boolean;
                closed_to_departure: boolean;
            }[];
        };
        AvailabilitySnapshot: {
            /** @description Watermark: events with a higher sequence apply on top of this snapshot */
            sequence: number;
            property: components["schemas"]["PropertyReference"];
            window: components["schemas"]["DateWindow"];
            /** @description Availability payload (also the data of availability.changed) */
            data: components["schemas"]["AvailabilityPayload"];
        };
        RatesSnapshot: {
            /** @description Watermark: events with a higher sequence apply on top of this snapshot */
            sequence: number;
            property: components["schemas"]["PropertyReference"];
            window: components["schemas"]["DateWindow"];
            /** @description Rates payload (also the data of rates.changed) */
            data: components["schemas"]["RatesPayload"];
        };
        RestrictionsSnapshot: {
            /** @description Watermark: events with a higher sequence apply on top of this snapshot */
            sequence: number;
            property: components["schemas"]["PropertyReference"];
            window: components["schemas"]["DateWindow"];
            /** @description Restrictions payload (also the data of restrictions.changed) */
            data: components["schemas"]["RestrictionsPayload"];
        };
        BulkResult: {
            summary: {
                requested: number;
                succeeded: number;
                failed: number;
            };
            results: {
                index: number;
                external_id: string | null;
                doorloom_id: number | null;
                /** @description created, updated or failed */
                status: string;
                property?: components["schemas"]["PropertyBlock"];
                error?: {
                    code: string;
                    message: string;
                    errors?: {
                        [key: string]: unknown;
                    };
                };
            }[];
        };
        SyncResult: {
            queued_properties: number;
            horizon_days: number;
            /** @description Normalised to the .changed names */
            types: string[];
        };
        /** @description Every failure: `success` false, a machine-readable `code` to branch on, a `message` for people, and sometimes `errors`. */
        ErrorEnvelope: {
            /** @constant */
            success: false;
            message: string;
            /** @example VALIDATION_FAILED */
            code: string;
            /** @description Validation: dotted field paths (`units.2.external_id`) to arrays of messages. Other codes: their details (`retry_after`, `doorloom_id`, `availability`). */
            errors?: {
                [key: string]: unknown;
            };
        };
        /** @description Members every event shares, delivered and replayed alike. Apply an event only when its sequence is above the last applied for its scope. */
        EventEnvelope: {
            /** @description ULID, unique for the life of the integration (not a sequence) */
            id: string;
            /** @description The event kind */
            type: string;
            /** @description Gap-free per integration */
            sequence: number;
            /**
             * @description `partner` for the integration’s own writes (an echo), `doorloom` for host and system changes
             * @enum {string}
             */
            origin: "partner" | "doorloom";
            /** @example 2026-09 */
            version: string;
            /**
             * Format: date-time
             * @description ISO-8601 with +05:30
             */
            created_at: string;
            integration: {
                id: number;
                slug: string;
            };
            /** @description The property the event is about; null for integration-wide events */
            property: components["schemas"]["PropertyReference"] | null;
            /** @description Nights a windowed kind covers, inclusive, never more than one calendar month */
            window: components["schemas"]["DateWindow"] | null;
            /** @description The kind’s payload */
            data: unknown;
        };
        InventoryChangedData: {
            /** @description Every unit (active and inactive), then a `deleted: true` entry per retired alias */
            units: (components["schemas"]["Unit"] | {
                inventory_id: number;
                external_unit_id: string | null;
                /** @constant */
                deleted: true;
            })[];
        };
        PropertyChangedData: {
            property: components["schemas"]["PropertyDetail"];
        };
        BookingChangedData: {
            booking: components["schemas"]["Booking"];
        };
        /** @description Availability of a property for a window of nights (full state, never a delta) */
        AvailabilityChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "availability.changed";
            data: components["schemas"]["AvailabilityPayload"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "availability.changed";
        };
        /** @description Rates of a property for a window of nights */
        RatesChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "rates.changed";
            data: components["schemas"]["RatesPayload"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "rates.changed";
        };
        /** @description Restrictions of a property for a window of nights */
        RestrictionsChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "restrictions.changed";
            data: components["schemas"]["RestrictionsPayload"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "restrictions.changed";
        };
        /** @description The units of a property */
        InventoryChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "inventory.changed";
            data: components["schemas"]["InventoryChangedData"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "inventory.changed";
        };
        /** @description A property’s block and input groups */
        PropertyChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "property.changed";
            data: components["schemas"]["PropertyChangedData"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "property.changed";
        };
        /** @description A booking, after any change by anyone */
        BookingChangedEvent: components["schemas"]["EventEnvelope"] & {
            /** @constant */
            type: "booking.changed";
            data: components["schemas"]["BookingChangedData"];
        } & {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "booking.changed";
        };
        /** @description Connectivity check sent to a paused integration; a 2xx resumes delivery. No sequence. */
        PingEvent: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "ping";
            sequence: null;
            /** @constant */
            origin: "doorloom";
            version: string;
            created_at: string;
            integration: {
                id: number;
                slug: string;
            };
            property: null;
            window: null;
            data: Record<string, never>;
        };
        /** @description Any event. New kinds may be added within a version: receivers ignore kinds they do not know. */
        Event: components["schemas"]["AvailabilityChangedEvent"] | components["schemas"]["RatesChangedEvent"] | components["schemas"]["RestrictionsChangedEvent"] | components["schemas"]["InventoryChangedEvent"] | components["schemas"]["PropertyChangedEvent"] | components["schemas"]["BookingChangedEvent"] | components["schemas"]["PingEvent"];
        EventRow: {
            sequence: number;
            event: components["schemas"]["Event"];
            delivery: {
                status: "pending" | "delivered" | "skipped";
                attempts: number;
                delivered_at: string | null;
            };
        };
    };
    responses: {
        /** @description INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request). */
        Failure400: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description UNAUTHENTICATED: no bearer token, or not a valid one. */
        Failure401: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED. */
        Failure403: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description NOT_FOUND: no such record for this caller (another integration’s records are NOT_FOUND too). */
        Failure404: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description REQUEST_TIMEOUT: the request was not received in time. */
        Failure408: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description PRECONDITION_FAILED: `If-Match` names a revision that is no longer current. */
        Failure412: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap. */
        Failure413: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description URI_TOO_LONG: a path segment is too long. */
        Failure414: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too). */
        Failure415: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description VALIDATION_FAILED (`errors` keyed by dotted field path; on any route, a query parameter holding a NUL character) or another refusal named by `code`; do not retry unchanged. */
        Failure422: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description RATE_LIMITED: wait `Retry-After`, then send the same request. */
        Failure429: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB. */
        Failure431: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description DATABASE_UNAVAILABLE or the service is shutting down: retry after a pause. */
        Failure503: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request’s id (the caller’s own when it sent a valid one); quote it when asking about a request. */
        "X-Request-Id": string;
        /** @description Remaining requests per tier that applied (`"<tier>";r=<remaining>;t=<seconds to reset>`, comma-separated). */
        RateLimit: string;
        /** @description The tiers that applied (`"<tier>";q=<limit>;w=60`, comma-separated). */
        "RateLimit-Policy": string;
        /** @description Limit of the tightest tier that applied, per minute. */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the tightest tier this minute. */
        "X-RateLimit-Remaining": number;
        /** @description Seconds to wait before sending the same request again. */
        "Retry-After": number;
        /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
        "Idempotent-Replayed": "true";
        /** @description The booking’s revision (`"3"`); send it back as `If-Match`. */
        ETag: string;
        /** @description `no-store`: the answer holds a secret shown once; no cache may keep it. */
        "Cache-Control": "no-store";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Integration"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    listProperties: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                /** @description Only properties in this status */
                status?: "active" | "inactive" | "archived";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            /** @description Watermark: the last event sequence read before the list was built */
                            sequence: number;
                            properties: components["schemas"]["PropertyBlock"][];
                        };
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    createProperty: {
        parameters: {
            query?: never;
            header: {
                /** @description Unique per create attempt; resend the same key to retry (the stored answer comes back with `Idempotent-Replayed: true`). */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PropertyCreateInput"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["PropertyBlock"];
                    };
                };
            };
            /** @description INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: no bearer token, or not a valid one. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description REQUEST_TIMEOUT: the request was not received in time. */
            408: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROPERTY_EXTERNAL_ID_EXISTS (`errors.doorloom_id` names the holder; fix the body, use a new key) or IN_PROGRESS (retry the same key after a few seconds). */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description URI_TOO_LONG: a path segment is too long. */
            414: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description VALIDATION_FAILED (dotted keys), IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: wait `Retry-After`, then send the same request. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            503: components["responses"]["Failure503"];
        };
    };
    bulkUpdateProperties: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    properties: {
                        /** @description Identifies the property (this or external_id) */
                        doorloom_id?: number;
                        /** @description Identifies the property; never re-maps it in a bulk update */
                        external_id?: string;
                        name?: string;
                        /**
                         * @description Never coerced: any other value is refused
                         * @enum {string|null}
                         */
                        property_type?: "villa" | "apartment" | "farm_stay" | "home_stay" | "hostel" | "bed_and_breakfast" | "resort" | "cottage" | "guest_house" | "room" | "suite" | "dorm" | "hotel" | null;
                        /**
                         * @description vacation_rental or resort_hotel
                         * @enum {string|null}
                         */
                        property_category?: "vacation_rental" | "resort_hotel" | null;
                        description?: string;
                        address?: components["schemas"]["AddressUpdate"];
                        space?: {
                            /** @description 0 to 500 */
                            bedrooms?: number;
                            /** @description 0 to 500 */
                            washrooms?: number;
                        };
                        occupancy?: {
                            /** @description Default 1 */
                            min_guests?: number;
                            /** @description Not below min_guests */
                            max_guests?: number;
                        };
                        /** @description weekday: Sunday to Thursday nights; weekend: Friday and Saturday nights */
                        pricing?: {
                            weekday?: components["schemas"]["NightlyPriceUpdate"];
                            weekend?: components["schemas"]["NightlyPriceUpdate"];
                        };
                        features?: {
                            is_private?: boolean;
                            is_pet_friendly?: boolean;
                            max_pets?: number | null;
                            /** @description INR per pet */
                            pet_charges?: number | null;
                            is_veg?: boolean;
                            is_smoking_in_rooms?: boolean;
                        };
                        units?: {
                            /** @description Addresses a unit by service id */
                            inventory_id?: number;
                            /** @description Addresses a unit by alias; an unknown alias creates a unit. With inventory_id: sets or changes the alias; null clears it */
                            external_id?: string | null;
                            /** @description Unique within the request */
                            name?: string;
                            code?: string | null;
                            /** @description Informational; not enforced */
                            max_occupancy?: number | null;
                            /** @description false takes the unit off sale (never the default unit); true restores it */
                            is_active?: boolean;
                        }[];
                    }[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["BulkResult"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    bulkCreateProperties: {
        parameters: {
            query?: never;
            header: {
                /** @description Unique per create attempt; resend the same key to retry (the stored answer comes back with `Idempotent-Replayed: true`). */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    properties: components["schemas"]["PropertyCreateInput"][];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["BulkResult"];
                    };
                };
            };
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["BulkResult"];
                    };
                };
            };
            /** @description INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: no bearer token, or not a valid one. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description REQUEST_TIMEOUT: the request was not received in time. */
            408: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description IN_PROGRESS: an identical batch is still running; retry the same key after a few seconds. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description URI_TOO_LONG: a path segment is too long. */
            414: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description VALIDATION_FAILED (keys `properties.N.*`; nothing written), IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: wait `Retry-After`, then send the same request. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            503: components["responses"]["Failure503"];
        };
    };
    getProperty: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["PropertyDetail"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    updateProperty: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PropertyUpdateInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["PropertyBlock"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            /** @description PROPERTY_EXTERNAL_ID_EXISTS: the external_id is mapped to another property. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            /** @description VALIDATION_FAILED (dotted keys, `units.N.*`) or PROPERTY_ARCHIVED. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getAvailabilitySnapshot: {
        parameters: {
            query: {
                /**
                 * @description First night, inclusive (YYYY-MM-DD)
                 * @example 2026-12-24
                 */
                from: string;
                /**
                 * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                 * @example 2026-12-24
                 */
                to: string;
            };
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["AvailabilitySnapshot"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            /** @description VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getRatesSnapshot: {
        parameters: {
            query: {
                /**
                 * @description First night, inclusive (YYYY-MM-DD)
                 * @example 2026-12-24
                 */
                from: string;
                /**
                 * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                 * @example 2026-12-24
                 */
                to: string;
            };
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["RatesSnapshot"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            /** @description VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getRestrictionsSnapshot: {
        parameters: {
            query: {
                /**
                 * @description First night, inclusive (YYYY-MM-DD)
                 * @example 2026-12-24
                 */
                from: string;
                /**
                 * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                 * @example 2026-12-24
                 */
                to: string;
            };
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["RestrictionsSnapshot"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            /** @description VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description The last sequence already applied; events after it are returned */
                after_sequence?: number;
                /** @description Page size, 1 to 200 */
                limit?: number;
                /** @description Comma-separated event kinds to return (e.g. availability.changed,rates.changed) */
                types?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["EventRow"][];
                        cursor: components["schemas"]["Cursor"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            /** @description CURSOR_EXPIRED: `after_sequence` is older than the 30-day replay window; take snapshots instead. */
            410: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    requestSync: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SyncInput"];
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["SyncResult"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            /** @description VALIDATION_FAILED or PROPERTY_NOT_MAPPED (an unknown or uncovered property id); does not use up the 24-hour window. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description SYNC_TOO_SOON (one sync per 24 hours; `errors.retry_after` in seconds) or RATE_LIMITED (six calls a day). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    listBookings: {
        parameters: {
            query?: {
                /** @description Any parseable date or timestamp; inclusive */
                updated_since?: string;
                /** @description Booking status */
                status?: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                property_id?: number;
                /**
                 * @description YYYY-MM-DD, earliest check-in
                 * @example 2026-12-24
                 */
                check_in_from?: string;
                /**
                 * @description YYYY-MM-DD, latest check-in
                 * @example 2026-12-24
                 */
                check_in_to?: string;
                page?: number;
                per_page?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    createBooking: {
        parameters: {
            query?: never;
            header: {
                /** @description Unique per create attempt; resend the same key to retry (the stored answer comes back with `Idempotent-Replayed: true`). */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingCreateInput"];
            };
        };
        responses: {
            /** @description A booking with this external_booking_id already exists (data.duplicate true) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"] & {
                            /** @description true: a booking with this external_booking_id already existed (200) */
                            duplicate: boolean;
                        };
                    };
                };
            };
            /** @description Booking created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"] & {
                            /** @description true: a booking with this external_booking_id already existed (200) */
                            duplicate: boolean;
                        };
                    };
                };
            };
            /** @description INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: no bearer token, or not a valid one. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description REQUEST_TIMEOUT: the request was not received in time. */
            408: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE (`errors.availability` holds the per-night picture) or IN_PROGRESS (retry the same key after a few seconds). */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description URI_TOO_LONG: a path segment is too long. */
            414: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description VALIDATION_FAILED, PROPERTY_NOT_MAPPED, PROPERTY_ARCHIVED, UNIT_INACTIVE, IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: wait `Retry-After`, then send the same request. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            503: components["responses"]["Failure503"];
        };
    };
    getBooking: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    updateBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                "if-match"?: string;
            };
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingUpdateInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            /** @description UNAVAILABLE: the changed stay is not free. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            412: components["responses"]["Failure412"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getBookingByExternalId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The partner’s booking id, URL-encoded. */
                external_booking_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    updateBookingByExternalId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                "if-match"?: string;
            };
            path: {
                /** @description The partner’s booking id, URL-encoded. */
                external_booking_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingUpdateInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            /** @description UNAVAILABLE: the changed stay is not free. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            412: components["responses"]["Failure412"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    cancelBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                "if-match"?: string;
            };
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["BookingCancelInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            412: components["responses"]["Failure412"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    cancelBookingByExternalId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                "if-match"?: string;
            };
            path: {
                /** @description The partner’s booking id, URL-encoded. */
                external_booking_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["BookingCancelInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            404: components["responses"]["Failure404"];
            408: components["responses"]["Failure408"];
            412: components["responses"]["Failure412"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getDeliveries: {
        parameters: {
            query?: {
                /** @description Attempt id to continue before (exclusive): the cursor.next_before of the previous page; absent starts at the newest */
                before?: number;
                /** @description Page size, 1 to 200 (default 50) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            /** @description Attempt id (the paging cursor) */
                            id: number;
                            /** @description When the attempt started (ISO-8601 with +05:30) */
                            attempted_at: string;
                            /** @description The event's sequence */
                            sequence: number;
                            /** @description Event kind */
                            type: string;
                            /** @description Event id (ULID) */
                            event_id: string;
                            /** @description The event's attempt number, from 1 */
                            attempt: number;
                            /** @description The receiver answered 2xx in time */
                            success: boolean;
                            status_code: number | null;
                            error: string | null;
                            /** @description From the request to the whole answer, or to the failure */
                            duration_ms: number;
                            response_body: string | null;
                            next_attempt_at: string | null;
                        }[];
                        cursor: {
                            next_before: number | null;
                            has_more: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyBookings: {
        parameters: {
            query?: never;
            header: {
                /** @description Unique per create attempt; resend the same key to retry (the stored answer comes back with `Idempotent-Replayed: true`). */
                "idempotency-key": string;
            };
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        /** @description The host booking body of the staff API. Defaults: one unit picked by the service for one adult, guest "Sandbox guest", total 0, channel direct, status confirmed. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description YYYY-MM-DD, not before today (Asia/Kolkata)
                     * @example 2026-12-24
                     */
                    check_in: string;
                    /**
                     * Format: date
                     * @description YYYY-MM-DD, exclusive; at most MAX_STAY_NIGHTS after check_in
                     * @example 2026-12-24
                     */
                    check_out: string;
                    /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
                    units?: components["schemas"]["BookingUnitInput"][];
                    guest?: {
                        name: string;
                        phone_code?: string | null;
                        mobile?: string | null;
                    };
                    pricing?: {
                        /** @description INR */
                        total: number;
                        /**
                         * @description Always INR
                         * @enum {string}
                         */
                        currency?: "INR";
                    };
                    /** @description Defaults to DL-<n>, numbered per brand; unique among the brand’s host bookings */
                    external_booking_id?: string;
                    /**
                     * @description pending or confirmed (default); both hold inventory
                     * @enum {string}
                     */
                    status?: "pending" | "confirmed";
                    notes?: string | null;
                    source?: {
                        /** @description Default direct */
                        channel?: string;
                        reference?: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            /** @description INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED: no bearer token, or not a valid one. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description REQUEST_TIMEOUT: the request was not received in time. */
            408: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A conflict; see the operation’s description for its codes (IN_PROGRESS: retry the same request after a few seconds). */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description URI_TOO_LONG: a path segment is too long. */
            414: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description VALIDATION_FAILED (`errors` keyed by dotted field path; on any route, a query parameter holding a NUL character) or another refusal named by `code`; do not retry unchanged. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RATE_LIMITED: wait `Retry-After`, then send the same request. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxBookingsByIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service's booking id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string | null;
                    refund_note?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["Booking"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyBlock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description Last night, inclusive (YYYY-MM-DD); at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to: string;
                    /** @description everywhere (default): no booking on any channel; ota_only: direct bookings still allowed */
                    block_scope?: "everywhere" | "ota_only";
                    /** @description These units only (inventory_id); without it the whole property */
                    inventory_ids?: number[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            doorloom_id: number;
                            window: components["schemas"]["DateWindow"] | null;
                            /** @description The payload of the edited nights (the matching event kind) */
                            data: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyUnblock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description Last night, inclusive (YYYY-MM-DD); at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to: string;
                    /** @description These units only (inventory_id); without it the whole property */
                    inventory_ids?: number[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            doorloom_id: number;
                            window: components["schemas"]["DateWindow"] | null;
                            /** @description The payload of the edited nights (the matching event kind) */
                            data: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyRateOverride: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description Last night, inclusive (YYYY-MM-DD); at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to: string;
                    /** @description INR per night; the override of the base price */
                    base_price?: number;
                    /** @description INR per extra adult per night */
                    extra_adult_price?: number;
                    /** @description INR per extra child per night */
                    extra_child_price?: number;
                    /** @description true removes every price override of these nights instead */
                    clear?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            doorloom_id: number;
                            window: components["schemas"]["DateWindow"] | null;
                            /** @description The payload of the edited nights (the matching event kind) */
                            data: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyRestrictionOverride: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description Last night, inclusive (YYYY-MM-DD); at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to: string;
                    min_stay?: number | null;
                    max_stay?: number | null;
                    /** @description Nights not for sale */
                    stop_sell?: boolean;
                    /** @description No check-in on these nights */
                    closed_to_arrival?: boolean;
                    /** @description No check-out on these dates */
                    closed_to_departure?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            doorloom_id: number;
                            window: components["schemas"]["DateWindow"] | null;
                            /** @description The payload of the edited nights (the matching event kind) */
                            data: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxPropertiesByPropertyArchive: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used. */
                property: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: components["schemas"]["PropertyDetail"];
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    getSandboxClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            /** @description The brand’s clock (ISO-8601 with +05:30) */
                            now: string;
                            /** @description How far the brand’s clock runs ahead of real time */
                            offset_seconds: number;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            414: components["responses"]["Failure414"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    postSandboxClockAdvance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Days to move the brand’s clock forward (1 to 366) */
                    days: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                        data: {
                            /** @description The brand’s clock (ISO-8601 with +05:30) */
                            now: string;
                            /** @description How far the brand’s clock runs ahead of real time */
                            offset_seconds: number;
                        };
                    };
                };
            };
            400: components["responses"]["Failure400"];
            401: components["responses"]["Failure401"];
            403: components["responses"]["Failure403"];
            /** @description NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            408: components["responses"]["Failure408"];
            413: components["responses"]["Failure413"];
            414: components["responses"]["Failure414"];
            415: components["responses"]["Failure415"];
            422: components["responses"]["Failure422"];
            429: components["responses"]["Failure429"];
            431: components["responses"]["Failure431"];
            503: components["responses"]["Failure503"];
        };
    };
    availabilityChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AvailabilityChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    ratesChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RatesChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    restrictionsChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RestrictionsChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    inventoryChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InventoryChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    propertyChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PropertyChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    bookingChangedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BookingChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    pingWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<raw body>` keyed by the whole secret (`whsec_…`), one `v1` per live secret (the new one first during a rotation). Reject a mismatch, or a `t` more than 300 s away, with 401. */
                "X-Service-Signature": string;
                /** @description The integration’s slug. */
                "X-Service-Integration": string;
                /** @description The event id (ULID). */
                "X-Service-Event-Id": string;
                /** @description Standard Webhooks: the event id. */
                "webhook-id": string;
                /** @description Standard Webhooks: `t`, unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64>` per live secret, space-separated; HMAC-SHA256 of `<id>.<t>.<raw body>` keyed by the base64 decoding of the part after `whsec_`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PingEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The signature did not verify; the delivery is retried on the ladder. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
