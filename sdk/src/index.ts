// Public entry point of @doorloom/partner-sdk.
export {};
