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
        get: {
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
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
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
                /** @description Default Response */
                200: {
                    headers: {
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
                                properties: {
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
                                    units: {
                                        inventory_id: number;
                                        external_unit_id: string | null;
                                        name: string;
                                        code: string | null;
                                        is_active: boolean;
                                        is_default: boolean;
                                        max_occupancy: number | null;
                                        /** @description Always false here; true only on inventory events for a retired alias */
                                        deleted: boolean;
                                    }[];
                                }[];
                            };
                            pagination: {
                                page: number;
                                per_page: number;
                                total: number;
                                last_page: number;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a property (requires Idempotency-Key) */
        post: {
            parameters: {
                query?: never;
                header: {
                    "idempotency-key": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
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
                        address: {
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
                            weekday: {
                                /** @description INR per night */
                                base_price: number;
                                /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                per_night_occupancy?: number;
                                /** @description INR per extra adult per night; default 0 */
                                extra_adult_price?: number;
                                /** @description INR per extra child per night; default 0 */
                                extra_child_price?: number;
                            };
                            weekend: {
                                /** @description INR per night */
                                base_price: number;
                                /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                per_night_occupancy?: number;
                                /** @description INR per extra adult per night; default 0 */
                                extra_adult_price?: number;
                                /** @description INR per extra child per night; default 0 */
                                extra_child_price?: number;
                            };
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
                };
            };
            responses: {
                /** @description Success */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                units: {
                                    inventory_id: number;
                                    external_unit_id: string | null;
                                    name: string;
                                    code: string | null;
                                    is_active: boolean;
                                    is_default: boolean;
                                    max_occupancy: number | null;
                                    /** @description Always false here; true only on inventory events for a retired alias */
                                    deleted: boolean;
                                }[];
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        put: {
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
                            address?: {
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
                                weekday?: {
                                    /** @description INR per night */
                                    base_price?: number;
                                    /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                    per_night_occupancy?: number;
                                    /** @description INR per extra adult per night; default 0 */
                                    extra_adult_price?: number;
                                    /** @description INR per extra child per night; default 0 */
                                    extra_child_price?: number;
                                };
                                weekend?: {
                                    /** @description INR per night */
                                    base_price?: number;
                                    /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                    per_night_occupancy?: number;
                                    /** @description INR per extra adult per night; default 0 */
                                    extra_adult_price?: number;
                                    /** @description INR per extra child per night; default 0 */
                                    extra_child_price?: number;
                                };
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
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                    property?: {
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
                                        units: {
                                            inventory_id: number;
                                            external_unit_id: string | null;
                                            name: string;
                                            code: string | null;
                                            is_active: boolean;
                                            is_default: boolean;
                                            max_occupancy: number | null;
                                            /** @description Always false here; true only on inventory events for a retired alias */
                                            deleted: boolean;
                                        }[];
                                    };
                                    error?: {
                                        code: string;
                                        message: string;
                                        errors?: {
                                            [key: string]: unknown;
                                        };
                                    };
                                }[];
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        /** Create up to 25 properties (requires Idempotency-Key) */
        post: {
            parameters: {
                query?: never;
                header: {
                    "idempotency-key": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        properties: {
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
                            address: {
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
                                weekday: {
                                    /** @description INR per night */
                                    base_price: number;
                                    /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                    per_night_occupancy?: number;
                                    /** @description INR per extra adult per night; default 0 */
                                    extra_adult_price?: number;
                                    /** @description INR per extra child per night; default 0 */
                                    extra_child_price?: number;
                                };
                                weekend: {
                                    /** @description INR per night */
                                    base_price: number;
                                    /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                    per_night_occupancy?: number;
                                    /** @description INR per extra adult per night; default 0 */
                                    extra_adult_price?: number;
                                    /** @description INR per extra child per night; default 0 */
                                    extra_child_price?: number;
                                };
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
                        }[];
                    };
                };
            };
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                    property?: {
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
                                        units: {
                                            inventory_id: number;
                                            external_unit_id: string | null;
                                            name: string;
                                            code: string | null;
                                            is_active: boolean;
                                            is_default: boolean;
                                            max_occupancy: number | null;
                                            /** @description Always false here; true only on inventory events for a retired alias */
                                            deleted: boolean;
                                        }[];
                                    };
                                    error?: {
                                        code: string;
                                        message: string;
                                        errors?: {
                                            [key: string]: unknown;
                                        };
                                    };
                                }[];
                            };
                        };
                    };
                };
                /** @description Success */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                    property?: {
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
                                        units: {
                                            inventory_id: number;
                                            external_unit_id: string | null;
                                            name: string;
                                            code: string | null;
                                            is_active: boolean;
                                            is_default: boolean;
                                            max_occupancy: number | null;
                                            /** @description Always false here; true only on inventory events for a retired alias */
                                            deleted: boolean;
                                        }[];
                                    };
                                    error?: {
                                        code: string;
                                        message: string;
                                        errors?: {
                                            [key: string]: unknown;
                                        };
                                    };
                                }[];
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The service's property id or the partner's external_id */
                    property: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                units: {
                                    inventory_id: number;
                                    external_unit_id: string | null;
                                    name: string;
                                    code: string | null;
                                    is_active: boolean;
                                    is_default: boolean;
                                    max_occupancy: number | null;
                                    /** @description Always false here; true only on inventory events for a retired alias */
                                    deleted: boolean;
                                }[];
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
                                created_at: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        /** Update a property (present groups applied, absent ones untouched) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The service's property id or the partner's external_id */
                    property: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
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
                        address?: {
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
                            weekday?: {
                                /** @description INR per night */
                                base_price?: number;
                                /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                per_night_occupancy?: number;
                                /** @description INR per extra adult per night; default 0 */
                                extra_adult_price?: number;
                                /** @description INR per extra child per night; default 0 */
                                extra_child_price?: number;
                            };
                            weekend?: {
                                /** @description INR per night */
                                base_price?: number;
                                /** @description Guests included in base_price; defaults to occupancy.max_guests */
                                per_night_occupancy?: number;
                                /** @description INR per extra adult per night; default 0 */
                                extra_adult_price?: number;
                                /** @description INR per extra child per night; default 0 */
                                extra_child_price?: number;
                            };
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
                };
            };
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
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
                                units: {
                                    inventory_id: number;
                                    external_unit_id: string | null;
                                    name: string;
                                    code: string | null;
                                    is_active: boolean;
                                    is_default: boolean;
                                    max_occupancy: number | null;
                                    /** @description Always false here; true only on inventory events for a retired alias */
                                    deleted: boolean;
                                }[];
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: {
                    /**
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from?: string;
                    /**
                     * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to?: string;
                };
                header?: never;
                path: {
                    /** @description The service's property id or the partner's external_id */
                    property: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                /** @description Watermark: events with a higher sequence apply on top of this snapshot */
                                sequence: number;
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
                                window: {
                                    from: string;
                                    to: string;
                                };
                                /** @description Availability payload (also the data of availability.changed) */
                                data: {
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
                                        date: string;
                                        available_units: number;
                                        total_units: number;
                                        is_blocked: boolean;
                                        block_scope: ("everywhere" | "ota_only") | null;
                                        units_cap: number | null;
                                    }[];
                                };
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: {
                    /**
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from?: string;
                    /**
                     * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to?: string;
                };
                header?: never;
                path: {
                    /** @description The service's property id or the partner's external_id */
                    property: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                /** @description Watermark: events with a higher sequence apply on top of this snapshot */
                                sequence: number;
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
                                window: {
                                    from: string;
                                    to: string;
                                };
                                /** @description Rates payload (also the data of rates.changed) */
                                data: {
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
                                        date: string;
                                        base_price: number;
                                        per_night_occupancy: number;
                                        extra_adult_price: number;
                                        extra_child_price: number;
                                        source: "weekday" | "weekend" | "override";
                                    }[];
                                };
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: {
                    /**
                     * @description First night, inclusive (YYYY-MM-DD)
                     * @example 2026-12-24
                     */
                    from?: string;
                    /**
                     * @description Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today
                     * @example 2026-12-24
                     */
                    to?: string;
                };
                header?: never;
                path: {
                    /** @description The service's property id or the partner's external_id */
                    property: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                /** @description Watermark: events with a higher sequence apply on top of this snapshot */
                                sequence: number;
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
                                window: {
                                    from: string;
                                    to: string;
                                };
                                /** @description Restrictions payload (also the data of restrictions.changed) */
                                data: {
                                    rules: {
                                        min_stay: number;
                                        max_stay: number;
                                        min_advance_days: number;
                                        max_advance_days: number;
                                    };
                                    dates: {
                                        date: string;
                                        min_stay: number;
                                        max_stay: number;
                                        stop_sell: boolean;
                                        closed_to_arrival: boolean;
                                        closed_to_departure: boolean;
                                    }[];
                                };
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
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
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                sequence: number;
                                /** @description The event envelope, exactly as delivered */
                                event: {
                                    [key: string]: unknown;
                                };
                                delivery: {
                                    status: "pending" | "delivered" | "skipped";
                                    attempts: number;
                                    delivered_at: string | null;
                                };
                            }[];
                            cursor: {
                                next_after_sequence: number;
                                has_more: boolean;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Service property ids, each covered; omitted: every covered property */
                        property_ids?: number[];
                        /** @description Any of availability, rates, restrictions, inventory, property, or their .changed spellings; omitted: all five */
                        types?: string[];
                    };
                };
            };
            responses: {
                /** @description Success */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                queued_properties: number;
                                horizon_days: number;
                                /** @description Normalised to the .changed names */
                                types: string[];
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: {
                    /** @description Any parseable date or timestamp; inclusive */
                    updated_since?: string;
                    /** @description Booking status */
                    status?: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                    property_id?: number;
                    /** @description YYYY-MM-DD, earliest check-in */
                    check_in_from?: string;
                    /** @description YYYY-MM-DD, latest check-in */
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
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            }[];
                            pagination: {
                                page: number;
                                per_page: number;
                                total: number;
                                last_page: number;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a booking (requires Idempotency-Key) */
        post: {
            parameters: {
                query?: never;
                header: {
                    "idempotency-key": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The partner’s id for the booking, unique within the integration */
                        external_booking_id: string;
                        /** @description The property by the partner’s external_id or by doorloom_id */
                        property: {
                            external_id?: string;
                            doorloom_id?: number;
                        };
                        /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
                        units: {
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
                        }[];
                        /** @description YYYY-MM-DD, not before today (Asia/Kolkata) */
                        check_in: string;
                        /** @description YYYY-MM-DD, exclusive; at most MAX_STAY_NIGHTS after check_in */
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
                };
            };
            responses: {
                /** @description A booking with this external_booking_id already exists (data.duplicate true) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                                /** @description true: a booking with this external_booking_id already existed (200) */
                                duplicate: boolean;
                            };
                        };
                    };
                };
                /** @description Booking created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                                /** @description true: a booking with this external_booking_id already existed (200) */
                                duplicate: boolean;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a booking */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description YYYY-MM-DD */
                        check_in?: string;
                        /** @description YYYY-MM-DD, exclusive */
                        check_out?: string;
                        /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
                        units?: {
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
                        }[];
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
                };
            };
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    external_booking_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a booking by external_booking_id */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                    "if-match"?: string;
                };
                path: {
                    external_booking_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description YYYY-MM-DD */
                        check_in?: string;
                        /** @description YYYY-MM-DD, exclusive */
                        check_out?: string;
                        /** @description Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay. */
                        units?: {
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
                        }[];
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
                };
            };
            responses: {
                /** @description Success */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
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
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
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
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED */
                    "if-match"?: string;
                };
                path: {
                    external_booking_id: string;
                };
                cookie?: never;
            };
            requestBody: {
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
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            message: string;
                            data: {
                                id: number;
                                external_booking_id: string;
                                /** @description 1 at create, +1 on every change by anyone */
                                revision: number;
                                /**
                                 * @description Booking status
                                 * @enum {string}
                                 */
                                status: "pending" | "confirmed" | "cancelled" | "completed" | "refunded";
                                property: {
                                    doorloom_id: number;
                                    external_id: string | null;
                                };
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
                                check_in: string;
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
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                created_at: string;
                                /** @description YYYY-MM-DDTHH:mm:ss+05:30 */
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Failure */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Failure */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: false;
                            message: string;
                            code: string;
                            errors?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
