/* eslint-disable */
// Generated from mmgen's GET /v1/openapi.json (API 1.1.1) by `npm run generate -w @mmgen/sdk`.
// Do not edit: a test fails when this file differs from what mmgen serves.
export interface paths {
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the model catalog
         * @description Every active model the organization may use, with capabilities and pricing (with the operator's margin). Not paged: the whole catalog is returned. Models the operator turned off, or does not let this organization use, are left out.
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one model by slug or id
         * @description The model's modality, provider, price, parameters and announced end of life, by its slug, `mdl_` id or one of its aliases. A deprecated model's answer carries Deprecation, Sunset and Link headers.
         */
        get: operations["getModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization of the calling key
         * @description Its name, plan and the plan's limits, whether it is paused and why, and its monthly budget.
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Pause or unpause the organization, or set its monthly budget (owner keys only)
         * @description Setting `paused: false` lifts a pause set by the spending anomaly detector; the queued generations that waited then start. `monthly_budget_usd` and `budget_action` set the organization's budget, which counts the spend of all its keys (contract §7).
         */
        patch: operations["updateOrganization"];
        trace?: never;
    };
    "/v1/organization/data-policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's data policy: payload capture, redaction and retention
         * @description What the organization keeps of its requests and for how long, with the dates what is kept now expires.
         */
        get: operations["getDataPolicy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the organization's data policy (owner keys only)
         * @description Fields left out keep their value; `generation_days` and `file_days` take null to keep forever. A shorter `request_log_days` also removes the rows already older than it; prompts and files past a new `generation_days` or `file_days` are removed at the next retention run (hourly). A change reaches every node within 5 seconds.
         */
        patch: operations["updateDataPolicy"];
        trace?: never;
    };
    "/v1/organization/moderation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's moderation policy
         * @description What happens to an output a classifier scores above `threshold` (`flag`: served and marked; `block`: never served, not charged), and the words that refuse a prompt before anything is reserved.
         */
        get: operations["getModerationPolicy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the organization's moderation policy (owner keys only)
         * @description Fields left out keep their value. Takes effect on every node within two seconds.
         */
        patch: operations["updateModerationPolicy"];
        trace?: never;
    };
    "/v1/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's credit wallet
         * @description Test-mode keys read the same wallet; they never move it.
         */
        get: operations["getWallet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's billing: buying credits, its saved card and auto top-up
         * @description Whether credits can be bought on this instance, within which amounts and at what rate, whether a card is saved, and the auto top-up settings with their failures.
         */
        get: operations["getBilling"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Buy credits: start a Stripe Checkout Session
         * @description Owner or admin keys (live). `amount` is in the operator's currency's smallest unit, within its minimum and maximum (GET /v1/billing). The answer's `url` is Stripe's hosted page; the credits land when Stripe reports the payment paid, once.
         */
        post: operations["createCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/checkout/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A Checkout Session after the return from Stripe, credited if paid
         * @description Reads the session from Stripe and, if it is paid, credits it (once, like its webhook), so the return page shows the new balance at once. Answers the session's status, its payment and the wallet.
         */
        get: operations["getCheckout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/payment-method": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Save a card for automatic top-ups (Stripe Checkout in setup mode)
         * @description Owner keys (live). The answer's `url` is Stripe's hosted page where the owner saves a card; it replaces any card saved before.
         */
        post: operations["createPaymentMethodSetup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/auto-topup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set auto top-up: threshold, amount and monthly cap (owner keys only)
         * @description When available credits fall below `threshold_credits`, `amount` is paid with the saved card, one payment at a time, never more than `monthly_cap` a month. It stops after the operator's number of failures in a row, at once for a card that needs the owner's authentication, and while the organization is paused; `billing.auto_topup_failed` tells of each failure. Turning it on again clears the failures.
         */
        put: operations["updateAutoTopup"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Payments, automatic top-ups, refunds and disputes
         * @description Newest first, each with its amount, the credits it moved and Stripe's receipt link.
         */
        get: operations["listPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/stripe/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stripe's webhook endpoint (for Stripe, not for clients)
         * @description Events signed with the operator's webhook secret (Stripe-Signature) are verified with the stripe library; each event's object is then read again from Stripe's API, and only what the API says is paid is credited. Configure it in Stripe for checkout.session.completed, payment_intent.succeeded, payment_intent.payment_failed, charge.refunded and charge.dispute.*.
         */
        post: operations["receiveStripeEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's API keys of the caller's mode
         * @description A live key lists live keys, a test key test keys. Paged with `limit` and `starting_after`; secrets are never listed.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The key inherits the role of the calling key unless a narrower `role` is given; it can never be broader than the caller.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling key itself: its name, mode, role, scopes and limits
         * @description Any key may read its own record (no scope needed), so that a client such as the dashboard can tell in advance which operations the key may call: compare its role and scopes with `x-mmgen-role` and `x-mmgen-scope` of each operation in this document.
         */
        get: operations["getCurrentApiKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an API key (never its secret)
         * @description The key's name, mode, role, scopes, IP allowlist, monthly budget and when it was last used. Only the key's creation answer carries its secret.
         */
        get: operations["getApiKey"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key, effective on the next request
         * @description The key answers 401 from its next request on, on every node. Its generations, usage and ledger entries stay.
         */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        /**
         * Update a key's name, scopes, IP allowlist or monthly budget and its action
         * @description Fields left out keep their value. A change takes effect on the next request, on every node; a key cannot be given more than the caller has.
         */
        patch: operations["updateApiKey"];
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in person, the organization the session acts in, and every organization they belong to
         * @description For the dashboard session only (an API key sent as a bearer gets 403 `session_required`). For a session opened with an API key (`kind` api_key), `api_key` names the key it acts as and `account` is null.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in with an email and password
         * @description Starts a dashboard session: sets the HttpOnly session cookie and the readable CSRF cookie. A wrong email or password is one 401 `invalid_credentials` whichever was wrong; repeated failures are slowed, then locked (429) per email and per address. Signs in to `organization_id` when given, else to the oldest membership. When the person asks for a passkey after their password, the right password starts no session: 401 `second_factor_required` sets a short-lived, single-use HttpOnly cookie for POST /v1/session/second-factor/options and POST /v1/session/second-factor, which finish the sign-in with one of their passkeys.
         */
        post: operations["signIn"];
        /**
         * Sign out: end the current session
         * @description Ends the session of the cookie sent (with its CSRF token) and clears the cookies. Answers 200 when there was no live session.
         */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        /**
         * Switch the session to another of the person's organizations, or to the other mode
         * @description From the next request on, the session acts as the person's membership of `organization_id` (with that membership's role), in `mode`. A switch that changes either gives the session a new CSRF token (`csrf_token`, and the readable CSRF cookie): a request that still sends the old one is refused with 403 `csrf_token_invalid`, so nothing meant for the organization or mode left behind lands in the one switched to. A switch that changes neither answers the token the session has.
         */
        patch: operations["switchSession"];
        trace?: never;
    };
    "/v1/session/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a dashboard session with an API key
         * @description Exchanges an API key, once, for a dashboard session that acts exactly as that key (its organization, mode, effective role, scopes, IP allowlist, budgets, rate limit and request-log attribution): sets the same HttpOnly session cookie and readable CSRF cookie as a person's sign-in, with the same idle and absolute timeouts, so the browser never has to keep the key. Revoking the key, lowering its member's role or removing the member applies to the session from its next request. A malformed, unknown or revoked key is one 401 `invalid_api_key`; repeated failures are slowed, then locked (429) per address, as failed password sign-ins are. Send the key in the body only: this operation takes no Authorization header.
         */
        post: operations["signInWithKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the signed-in person's own sign-in settings
         * @description `passkey_after_password: true` makes every password sign-in of the person also ask for one of their passkeys (a second factor); a passkey sign-in alone and single sign-on are unchanged. Turning it on needs a password and at least one passkey (409 `passkey_required`); while it is on, the last passkey cannot be removed. Recorded as `account.updated` with before and after.
         */
        patch: operations["updateAccount"];
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in person's live sessions
         * @description Every session of the person that has not ended: where and when it signed in, and when it was last used. For a session opened with an API key: the live sessions opened with that key.
         */
        get: operations["listSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End one of your sessions
         * @description The session answers 401 from its next request on. Another person's session is 404, as one that never existed; a session opened with an API key ends only sessions opened with that key.
         */
        delete: operations["revokeSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's members and their roles
         * @description Every current member. Removed members are not listed (their keys are revoked).
         */
        get: operations["listMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A member of the organization
         * @description A member of another organization is 404, as one that never existed.
         */
        get: operations["getMember"];
        put?: never;
        post?: never;
        /**
         * Remove a member; their keys are revoked
         * @description The member's keys answer 401 and their sessions in this organization end from their next request, on every node. The last owner cannot be removed (409 `last_owner`). Their generations, usage and ledger entries stay.
         */
        delete: operations["removeMember"];
        options?: never;
        head?: never;
        /**
         * Change a member's role or monthly budget
         * @description Fields left out keep their value. Up to the caller's own role, of a member whose role is not above the caller's. The member's keys act with at most the new role from their next request, on every node. The last owner cannot be demoted (409 `last_owner`). `monthly_budget_usd` and `budget_action` set the member's budget, which counts the live spend of all of their keys (their dashboard sessions' generations included) this calendar month, as keys' budgets do (contract §7): `block` refuses a request that would pass it with 402 `budget_exceeded`, from the member's keys' next request on every node.
         */
        patch: operations["updateMember"];
        trace?: never;
    };
    "/v1/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Invitations not yet accepted
         * @description Pending invitations (neither accepted, revoked nor expired); their links are never listed.
         */
        get: operations["listInvitations"];
        put?: never;
        /**
         * Invite a person by email
         * @description At a role up to the caller's own. The invitation is mailed over SMTP when the operator configured it (MMGEN_SMTP_URL); its link is returned either way, once, to copy.
         */
        post: operations["createInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an invitation
         * @description Its link no longer works.
         */
        delete: operations["revokeInvitation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation with its token, and sign in
         * @description Without a session: creates the person's account (the invitation's email, or `email` for the first-start owner link, and `password`) and signs in. With a session (and its CSRF token): the signed-in person joins. 410 `invitation_invalid` for a used, revoked or expired link.
         */
        post: operations["acceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/passkeys/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin adding a passkey: the options for the browser
         * @description For the signed-in person (the dashboard session). Answers WebAuthn creation options for this installation (its RP ID is the host of MMGEN_PUBLIC_URL) with a challenge that works once, for five minutes; hand them to navigator.credentials.create() and send its answer to POST /v1/passkeys. The person's passkeys are excluded, so an authenticator is registered once.
         */
        post: operations["createPasskeyRegistrationOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in person's passkeys
         * @description Every passkey of the person (they sign in to any of the person's organizations): names, kinds and last use; never keys.
         */
        get: operations["listPasskeys"];
        put?: never;
        /**
         * Add a passkey: verify the browser's answer and keep it
         * @description Verifies the authenticator's answer to the options of POST /v1/passkeys/options (attestation `none`; the challenge, this installation's origin and RP ID, user verification) through @simplewebauthn/server, and keeps the passkey for the person. A wrong, used or expired challenge, another origin or a bad attestation is 400 `parameter_invalid` (param `credential`) saying which.
         */
        post: operations["addPasskey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/passkeys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove one of your passkeys
         * @description It signs no one in from then on. Another person's passkey is 404, as one that never existed. The last passkey of a person who asks for a passkey after their password is refused (409 `passkey_required`): turn that off first (PATCH /v1/account).
         */
        delete: operations["removePasskey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/passkey/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin signing in with a passkey: the options for the browser
         * @description Answers WebAuthn request options with a challenge that works once, for five minutes, and no list of credentials: the browser offers the passkeys it holds for this site. Hand them to navigator.credentials.get() and send its answer to POST /v1/session/passkey. 429 while the address is locked for failed sign-ins.
         */
        post: operations["createPasskeySignInOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/passkey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with a passkey
         * @description Verifies the assertion (challenge, origin, RP ID, user verification, signature, and a signature counter past the last one seen) against the passkey it names and starts the same session as a password sign-in: the HttpOnly session cookie, the CSRF cookie and token. Every refusal is 401 `invalid_credentials` with the reason; failures count toward the same slowing and lock (429) as passwords, per the person's email and per address. Signs in to `organization_id` when given, else to the oldest membership.
         */
        post: operations["signInWithPasskey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/second-factor/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * After a password that asks for a passkey: the options for the browser
         * @description Needs the pending sign-in cookie set by POST /v1/session's 401 `second_factor_required` (HttpOnly, five minutes; this call does not use it up). Answers WebAuthn request options listing the person's passkeys, with a challenge that works once; hand them to navigator.credentials.get() and send its answer to POST /v1/session/second-factor. No, an unknown or an expired pending sign-in is 401 `invalid_credentials`; 429 while the person's email or the address is locked.
         */
        post: operations["createSecondFactorOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/second-factor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * After a password that asks for a passkey: finish signing in with one
         * @description With the pending sign-in cookie of POST /v1/session, verifies the assertion as a passkey sign-in does (challenge, origin, RP ID, user verification, signature, counter) and that the passkey is the same person's, then starts the session (`method: password_passkey`): the session and CSRF cookies and token. The pending sign-in is used up by this call whatever its outcome (it is single-use): every refusal (no, an unknown, used or expired pending sign-in, another person's passkey, a bad assertion) is 401 `invalid_credentials` with the reason, and the password must be given again. Failures count toward the same slowing and lock (429) as failed passwords, per the person's email and per address.
         */
        post: operations["finishSecondFactor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sign-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether this installation takes sign-ups
         * @description Public (the sign-in page reads it to offer "Create an account"). `open` is the operator's MMGEN_SIGNUP.
         */
        get: operations["getSignUpSettings"];
        put?: never;
        /**
         * Sign up: ask for an account by email
         * @description Mails a link that confirms the email (valid MMGEN_SIGNUP_TTL_HOURS, 24, once); following it (POST /v1/sign-up/verify) creates the account with this password and a new organization the person owns. The answer is the same 202 whether or not the email already has an account (its owner is mailed a notice instead). Counted per email and per address like failed sign-ins: slowed, then 429. 403 `sign_up_closed` when the operator has not opened sign-up.
         */
        post: operations["signUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sign-up/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a sign-up with the mailed token, and sign in
         * @description The token of the mailed link (`…/dashboard/sign-up#token=…`). Creates the account, a new organization the person owns (the operator's MMGEN_SIGNUP_PLAN, an empty wallet), and a session, as a sign-in does (`method: sign_up`). 410 `sign_up_invalid` for an unknown, used or expired token; 409 `email_taken` if the email got an account in between.
         */
        post: operations["verifySignUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organization/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's single sign-on (OpenID Connect) settings
         * @description The issuer, client id (never its secret), auto-join domains and role, and whether SSO is required. 404 when none is configured.
         */
        get: operations["getSsoSettings"];
        /**
         * Configure single sign-on through any OpenID Connect issuer
         * @description Authorization code flow with PKCE, for any issuer that publishes discovery (read now: a wrong issuer is a 400 here). Omitted client_secret keeps the stored one; null makes a public client. require_sso needs a break-glass owner, who alone may still sign in with a password.
         */
        put: operations["updateSsoSettings"];
        post?: never;
        /**
         * Turn single sign-on off
         * @description Members sign in with their passwords (or passkeys) again; accounts made through SSO keep their memberships. 404 when none is configured.
         */
        delete: operations["deleteSsoSettings"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sso/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin signing in through an organization's identity provider
         * @description Answers the issuer's authorization URL (code flow, PKCE S256, state and nonce kept by mmgen for ten minutes); send the browser there. The issuer returns it to /v1/sso/callback.
         */
        post: operations["startSsoSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sso/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The identity provider's redirect back: signs the person in
         * @description Exchanges the code (checking PKCE, state, nonce and the ID token's signature against the issuer's JWKS), finds or makes the person by the ID token (subject, then verified email), joins them at the configured role when their email domain joins automatically, sets the session cookies and redirects to the dashboard.
         */
        get: operations["finishSsoSignIn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images (synchronous)
         * @description Text-to-image, or image-to-image with upload_id or image_url. Answers with the finished generation.
         */
        post: operations["createImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a video (asynchronous)
         * @description Answers 202 with the queued generation and its generation_id; the MP4 and a JPEG thumbnail follow.
         */
        post: operations["createVideo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/voice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Text to speech (synchronous)
         * @description Answers with the finished generation: one audio output. Charged per 1,000 characters.
         */
        post: operations["createVoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/music": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate music (asynchronous)
         * @description Answers 202 with the queued generation; one audio output of duration_s seconds follows.
         */
        post: operations["createMusic"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/avatars": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Talking avatar / lipsync (asynchronous)
         * @description A portrait (upload_id or image_url) speaking `text` (with voice_id), or lip-syncing speech: `audio_url`, or an audio upload as `audio_upload_id`. Answers 202; a video and its thumbnail follow.
         */
        post: operations["createAvatar"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat completion (synchronous, generation shape)
         * @description Reserves max_tokens output tokens and charges the tokens produced. POST /v1/chat/completions is the same in the OpenAI shape.
         */
        post: operations["createChat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat completion in the OpenAI shape (stream: true for server-sent events)
         * @description One chat generation in OpenAI's Chat Completions shape, for every chat model of the catalog: reserved at `max_tokens`, charged by output tokens, rate-limited, idempotent, prompt-screened and listed in GET /v1/generations. The completion's `id` is the generation's. Text only: fields that would change the reply and that mmgen does not honor are 400 naming them.
         */
        post: operations["createChatCompletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images in the OpenAI shape
         * @description The image generation of POST /v1/images in OpenAI's request and response shape. The generation id is in the X-Mmgen-Generation-Id header.
         */
        post: operations["createOpenAiImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images/edits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Edit an image in the OpenAI shape (multipart)
         * @description Image-to-image in OpenAI's multipart shape: one `image` part (PNG, JPEG or WebP, up to 20 MiB, checked like an upload) becomes the generation's input image (kept as an upload, named in its params); the model must take an input image. No mask. The generation id is in the X-Mmgen-Generation-Id header.
         */
        post: operations["createOpenAiImageEdit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audio/speech": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Text to speech in the OpenAI shape: the audio bytes
         * @description The voice generation of POST /v1/voice in OpenAI's shape. The answer is the audio file; the generation id is in the X-Mmgen-Generation-Id header.
         */
        post: operations["createOpenAiSpeech"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat message in Anthropic's Messages shape (stream: true for its server-sent events)
         * @description One chat generation in Anthropic's Messages shape, for every chat model of the catalog (OpenAI's too): reserved at `max_tokens`, charged by output tokens, rate-limited, idempotent and moderated. The message's `id` is the generation's. Text blocks only; `tools`, `tool_choice` and `thinking` are 400 naming the field.
         */
        post: operations["createMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Model response in OpenAI's Responses shape, text only (stream: true for its server-sent events)
         * @description One chat generation in OpenAI's Responses shape, for every chat model of the catalog: reserved at `max_output_tokens`, charged by output tokens. mmgen keeps no conversation state (send earlier turns in `input`; an `item_reference` to an earlier reply is read from its generation). Tools, structured output and background runs are 400 naming the field.
         */
        post: operations["createResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/three-d": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Text-to-3D or image-to-3D (asynchronous)
         * @description Answers 202; a GLB mesh (model/gltf-binary) and a thumbnail follow.
         */
        post: operations["createThreeD"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/upscale": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upscale an image 2x or 4x (asynchronous)
         * @description Answers 202; a JPEG of exactly the input size × scale follows.
         */
        post: operations["createUpscale"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a generation (poll this for asynchronous work)
         * @description Output URLs are signed afresh on every read.
         */
        get: operations["getGeneration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List generations, newest first
         * @description The organization's generations of the caller's mode, filtered by `status` and `modality`, paged with `limit` and `starting_after`. Output URLs are signed afresh.
         */
        get: operations["listGenerations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running generation; its reservation is refunded in full
         * @description The generation ends canceled in the statement that refunds it, then its provider is told to stop (best effort). One that has already ended answers 409 generation_not_cancelable.
         */
        post: operations["cancelGeneration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a failed asynchronous generation
         * @description Reserves again and queues the generation. The provider is asked about the earlier attempt first: if it finished, its result is used and nothing is submitted again, so the caller is charged once.
         */
        post: operations["retryGeneration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server-sent events of a generation until it is terminal
         * @description Events `generation` (data: the generation JSON, id: an increasing integer), `progress` while it runs, where the provider reports it (data: `{generation_id, stage, percent?, queue_position?}`), and `: ping` comments. Resume with Last-Event-ID.
         */
        get: operations["streamGenerationEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/comparisons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send one prompt to several models side by side (asynchronous)
         * @description Models must be distinct and of one modality; at most free 2, pro 3, studio 6, team 12 by plan. The credits of every child are reserved together, or nothing is (402). Needs the write scope of the models' modality.
         */
        post: operations["createComparison"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/comparisons/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A comparison with all its child generations
         * @description Its status and each child generation as GET /v1/generations/{id} shows it, with its cost and time; poll it until the comparison completes.
         */
        get: operations["getComparison"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The credits a generation request would reserve
         * @description Takes the body of a modality's endpoint (POST /v1/images, …) and answers what that request would reserve now, priced as its acceptance prices it, with the errors it would get (400, 403 for a key without the modality’s scope, 404, 410). Nothing is reserved or written; the prompt is not screened. A cache hit, which a request with a seed may get for free, is not foreseen.
         */
        post: operations["createQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage aggregated by day, model, API key or modality over a date range
         * @description Dates are UTC days, inclusive; by default the current calendar month up to today. Usage of the calling key's mode (test keys see test usage, which costs nothing). `breakdown` splits each row by a second dimension, e.g. `group_by=day&breakdown=modality` for a daily chart by modality.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the request log, newest first
         * @description Every /v1 call of the organization in the caller's mode, refused ones included, within the organization's request log retention. The filters search every row, not only a page; page with `limit` and `starting_after` (the last request id of the previous page).
         */
        get: operations["listRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the request log as JSON Lines or CSV
         * @description The rows a search with the same filters finds, all of them, newest first, streamed: one JSON object a line (`format=jsonl`, the default) or CSV with a header line (`format=csv`). The export is read a page at a time as the client reads it, so its size is not limited.
         */
        get: operations["exportRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's webhooks of the caller's mode
         * @description A live key lists live webhooks, a test key test webhooks. Paged with `limit` and `starting_after`; signing secrets are never listed.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook
         * @description The webhook receives the events of the caller's organization and mode only. The signing secret is in this response only.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook (never its secret)
         * @description Its URL, the events it subscribes to, whether it is enabled, and its mode.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook; deliveries not yet made are dropped
         * @description The log of its past deliveries goes with it.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Update a webhook's url, events or enabled flag
         * @description A disabled webhook gets no new events and its pending retries wait; enabling it again resumes them.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a webhook's deliveries, newest first
         * @description Each delivery's event, status, attempts so far and next attempt; filtered by `status`, paged with `limit` and `starting_after`.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a delivery with the log of its attempts
         * @description Every attempt, oldest first: when it started, how long it took, and the receiver's HTTP status or the network error.
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an event again, as a new delivery (same evt_ id, new whd_ id)
         * @description Sent even while the webhook is disabled: a replay is asked for explicitly.
         */
        post: operations["replayWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a `webhook.test` event to this webhook only
         * @description Delivered like any event (signed, retried), whatever the webhook subscribes to, even while it is disabled.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's audit log, newest first
         * @description Who changed what, when and from where, with the values before and after: keys, budgets, webhooks, the moderation policy, the organization's settings, its model access, wallet top-ups. Filtered by action, actor, target and time; paged with `limit` and `starting_after`. A key reads the entries made by keys of its own mode, and the operator's and the system's. Owners and admins only.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit-events/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's audit log as JSON Lines, streamed
         * @description Every entry the filters match (the same filters as the list), newest first, one AuditEvent JSON object per line (`application/x-ndjson`), streamed as it is read, so any length can be exported. Owners and admins only.
         */
        get: operations["exportAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an upload: a presigned URL for one input image, or an avatar's speech
         * @description PUT the file to `upload_url` with the declared Content-Type; then pass the `id` as `upload_id` to a generation (an image), or as `audio_upload_id` to an avatar (audio/mpeg or audio/wav, at most 60 s). The file must be what it is declared to be.
         */
        post: operations["createUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an upload: its status, and width and height once uploaded
         * @description Poll this after sending the file: an image's width and height are read once it has arrived, and the upload's id is then accepted by generation requests.
         */
        get: operations["getUpload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Send the file of an upload (the presigned upload_url)
         * @description No API key: the signature in the query is the credential. The body is the raw file with the declared Content-Type, at most `size_bytes` (else 413), a complete image of that type (else 400). Repeating a successful PUT with the same file answers 200 again; another file answers 409 `upload_already_completed`.
         */
        put: operations["putUpload"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a generated file (presigned URL)
         * @description The `url` of a generation output. No API key: the signature in the query is the credential. A tampered or expired URL gets 403; read the generation again for a fresh URL. A file moderation blocked answers 451 `content_blocked`; one whose verdict is pending, 409 `moderation_pending`; one the organization's retention (`file_days`) deleted, 410 `file_expired`.
         */
        get: operations["getFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process answers
         * @description Always 200 while the process runs, draining included: restart a node only when this stops answering.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: database, blob store, Redis, workers and the queue
         * @description 200 when this node can serve (`status` ok, or degraded when Redis is unreachable or no worker runs while nothing waits); 503 when the database or blob store fails, the oldest due job has waited longer than MMGEN_READY_MAX_QUEUE_AGE_S, or the node is draining.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this node
         * @description Text exposition format. Counters and latency histograms are per node (sum them); queue gauges are installation-wide (take max). When MMGEN_METRICS_TOKEN is set, send it as `Authorization: Bearer <token>`.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description Every operation of the organizations' API with its schemas, roles and scopes (`x-mmgen-role`, `x-mmgen-scope`) and modality facts (`x-mmgen-modality`): the source the SDK's types and the dashboard are built from. Public, no key needed.
         */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Error */
        Error: {
            error: {
                /** @description invalid_request_error, authentication_error, billing_error, permission_error, idempotency_error, rate_limit_error, upstream_error or api_error */
                type: string;
                /** @enum {string} */
                code: "invalid_json" | "parameter_missing" | "parameter_invalid" | "parameter_unknown" | "model_modality_mismatch" | "content_policy_violation" | "missing_authorization" | "invalid_authorization" | "invalid_api_key" | "invalid_credentials" | "session_expired" | "second_factor_required" | "insufficient_credits" | "budget_exceeded" | "ip_not_allowed" | "insufficient_role" | "organization_paused" | "plan_limit_exceeded" | "feature_not_available" | "signature_invalid" | "model_not_allowed" | "csrf_token_invalid" | "session_required" | "live_mode_required" | "sso_required" | "sign_up_closed" | "resource_not_found" | "route_not_found" | "model_not_found" | "generation_not_cancelable" | "generation_not_retryable" | "generation_canceled" | "idempotency_key_in_use" | "upload_already_completed" | "moderation_pending" | "last_owner" | "email_taken" | "passkey_required" | "model_unavailable" | "invitation_invalid" | "sign_up_invalid" | "file_expired" | "payload_too_large" | "unsupported_media_type" | "idempotency_key_reused" | "rate_limit_exceeded" | "content_blocked" | "internal_error" | "upstream_error" | "provider_unavailable" | "service_unavailable";
                message: string;
                param?: string;
                request_id?: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listModels: {
        parameters: {
            query?: {
                modality?: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                include_delisted?: boolean;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description mdl_… */
                            id: string;
                            /** @constant */
                            object: "model";
                            /** @description Unix seconds: the day mmgen's catalog was first published, the same for every model (OpenAI's Model requires it); not the model's age upstream. */
                            created: number;
                            /** @description The provider of its primary route, as `provider`. */
                            owned_by: string;
                            slug: string;
                            provider: string;
                            display_name: string;
                            /** @enum {string} */
                            modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                            capabilities: string[];
                            /** @description Prices with the operator's margin. */
                            pricing: {
                                /** @description The catalog's price per unit of the default variant on the primary route, margin included. */
                                unit_cost_usd: number;
                                /** @enum {string} */
                                unit: "image" | "second" | "1k_characters" | "output_token" | "mesh";
                                /** @description What one unit covers (chat: output tokens only; input tokens are not billed). */
                                unit_description: string;
                                source: string | null;
                                /** @description The price is an estimate (no first-party source publishes it, or none is recorded). */
                                estimate: boolean;
                                /** @description The price version (pv_…): a digest of everything the model's prices are made from. Each generation records the version that priced it. */
                                version: string;
                                /** @description What requests reserve on this installation, priced by the function that prices every reservation: tiers[0] is the default variant (`when` is {}), then one per differently priced tier a request selects. POST /v1/quotes with a tier's `example` (and an input image of `input_image`'s size) answers its `credits`. */
                                tiers: {
                                    /** @description The request fields (mmgen names, GET /v1/models parameters) that choose this price; {} for the default variant. */
                                    when: {
                                        [key: string]: unknown;
                                    };
                                    input_image: {
                                        width: number;
                                        height: number;
                                    } | null;
                                    /** @description A tier for outputs of at most this many megapixels (2^20 pixels): the input image × scale. */
                                    output_megapixels_at_most?: number;
                                    /** @description A long-context tier: requests whose prompt is more than this many input tokens (the provider's count when charged; reserved when the messages' UTF-8 bytes, plus 8 per message, are more). */
                                    input_tokens_over?: number;
                                    /** @description The request priced (an input image of `input_image` besides; with `input_tokens_over`, a prompt longer than that): send it to POST /v1/quotes. */
                                    example: {
                                        [key: string]: unknown;
                                    };
                                    /** @description US dollars per unit (per output with per_output; per started megapixel with per_megapixel), margin included. */
                                    unit_cost_usd: number;
                                    /** @description Priced per output (a track, an image), whatever its length. */
                                    per_output: boolean;
                                    /** @description Priced per started megapixel of the image: the price grows with width × height. */
                                    per_megapixel: boolean;
                                    /** @description The units of the example (outputs, with per_output), a decimal string. */
                                    units: string;
                                    /** @description The credits the example reserves here with a live key (1 credit = US$0.001). */
                                    credits: number;
                                    /** @description The provider whose route prices it: the dearest this installation would serve it with. */
                                    provider: string;
                                }[];
                            };
                            /** @enum {string} */
                            status: "active" | "delisted";
                            /** @description Other names `model` may give for this model: its providers' own ids (dated snapshots, Anthropic's dashed names, ElevenLabs' ids), so code written for a provider's SDK runs unchanged. */
                            aliases: string[];
                            deprecation: {
                                deprecated_on: string | null;
                                shutdown_on: string | null;
                                replacement: string | null;
                                sources: string[];
                            } | null;
                            /** @description JSON Schema of the request fields this model takes, with its own enums, ranges, defaults and required fields (contract §3a), derived from what its providers document. Enforced: a request outside it is refused with 400 (parameter_invalid or parameter_missing, `param` naming the field) before anything is reserved. `x-mmgen-image: "required"`: the model needs an input image; `x-mmgen-speech`: the voice model that speaks an avatar's `text` first. */
                            parameters: {
                                [key: string]: unknown;
                            };
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getModel: {
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
                        /** @description mdl_… */
                        id: string;
                        /** @constant */
                        object: "model";
                        /** @description Unix seconds: the day mmgen's catalog was first published, the same for every model (OpenAI's Model requires it); not the model's age upstream. */
                        created: number;
                        /** @description The provider of its primary route, as `provider`. */
                        owned_by: string;
                        slug: string;
                        provider: string;
                        display_name: string;
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        capabilities: string[];
                        /** @description Prices with the operator's margin. */
                        pricing: {
                            /** @description The catalog's price per unit of the default variant on the primary route, margin included. */
                            unit_cost_usd: number;
                            /** @enum {string} */
                            unit: "image" | "second" | "1k_characters" | "output_token" | "mesh";
                            /** @description What one unit covers (chat: output tokens only; input tokens are not billed). */
                            unit_description: string;
                            source: string | null;
                            /** @description The price is an estimate (no first-party source publishes it, or none is recorded). */
                            estimate: boolean;
                            /** @description The price version (pv_…): a digest of everything the model's prices are made from. Each generation records the version that priced it. */
                            version: string;
                            /** @description What requests reserve on this installation, priced by the function that prices every reservation: tiers[0] is the default variant (`when` is {}), then one per differently priced tier a request selects. POST /v1/quotes with a tier's `example` (and an input image of `input_image`'s size) answers its `credits`. */
                            tiers: {
                                /** @description The request fields (mmgen names, GET /v1/models parameters) that choose this price; {} for the default variant. */
                                when: {
                                    [key: string]: unknown;
                                };
                                input_image: {
                                    width: number;
                                    height: number;
                                } | null;
                                /** @description A tier for outputs of at most this many megapixels (2^20 pixels): the input image × scale. */
                                output_megapixels_at_most?: number;
                                /** @description A long-context tier: requests whose prompt is more than this many input tokens (the provider's count when charged; reserved when the messages' UTF-8 bytes, plus 8 per message, are more). */
                                input_tokens_over?: number;
                                /** @description The request priced (an input image of `input_image` besides; with `input_tokens_over`, a prompt longer than that): send it to POST /v1/quotes. */
                                example: {
                                    [key: string]: unknown;
                                };
                                /** @description US dollars per unit (per output with per_output; per started megapixel with per_megapixel), margin included. */
                                unit_cost_usd: number;
                                /** @description Priced per output (a track, an image), whatever its length. */
                                per_output: boolean;
                                /** @description Priced per started megapixel of the image: the price grows with width × height. */
                                per_megapixel: boolean;
                                /** @description The units of the example (outputs, with per_output), a decimal string. */
                                units: string;
                                /** @description The credits the example reserves here with a live key (1 credit = US$0.001). */
                                credits: number;
                                /** @description The provider whose route prices it: the dearest this installation would serve it with. */
                                provider: string;
                            }[];
                        };
                        /** @enum {string} */
                        status: "active" | "delisted";
                        /** @description Other names `model` may give for this model: its providers' own ids (dated snapshots, Anthropic's dashed names, ElevenLabs' ids), so code written for a provider's SDK runs unchanged. */
                        aliases: string[];
                        deprecation: {
                            deprecated_on: string | null;
                            shutdown_on: string | null;
                            replacement: string | null;
                            sources: string[];
                        } | null;
                        /** @description JSON Schema of the request fields this model takes, with its own enums, ranges, defaults and required fields (contract §3a), derived from what its providers document. Enforced: a request outside it is refused with 400 (parameter_invalid or parameter_missing, `param` naming the field) before anything is reserved. `x-mmgen-image: "required"`: the model needs an input image; `x-mmgen-speech`: the voice model that speaks an avatar's `text` first. */
                        parameters: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOrganization: {
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
                        id: string;
                        /** @constant */
                        object: "organization";
                        name: string;
                        /** @enum {string} */
                        plan: "free" | "pro" | "studio" | "team";
                        enterprise: boolean;
                        paused: boolean;
                        paused_at: string | null;
                        pause_reason: {
                            /**
                             * @description anomaly: the spending anomaly detector; owner: an owner key paused it; billing: a refund or dispute left the wallet below zero (a payment that brings it back lifts it).
                             * @enum {string}
                             */
                            kind: "anomaly" | "owner" | "billing";
                            /** @description billing: the balance that paused it */
                            balance_credits?: number;
                            /** @description anomaly: the window judged */
                            window_minutes?: number;
                            /** @description anomaly: live spend in that window */
                            spent_usd?: number;
                            /** @description anomaly: the usual spend of such a window */
                            baseline_usd?: number;
                        } | null;
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** Format: date-time */
                        created_at: string;
                        /**
                         * PlanLimits
                         * @description The plan's limits, as the API enforces them.
                         */
                        limits: {
                            /** @description How many models one comparison may hold on this plan. */
                            models_per_comparison: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    paused?: boolean;
                    monthly_budget_usd?: number | null;
                    /**
                     * @description `notify` (default): usage.budget_threshold events only. `block`: a request whose reservation would take the month's spend past the budget is refused with 402 budget_exceeded.
                     * @enum {string}
                     */
                    budget_action?: "notify" | "block";
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
                        id: string;
                        /** @constant */
                        object: "organization";
                        name: string;
                        /** @enum {string} */
                        plan: "free" | "pro" | "studio" | "team";
                        enterprise: boolean;
                        paused: boolean;
                        paused_at: string | null;
                        pause_reason: {
                            /**
                             * @description anomaly: the spending anomaly detector; owner: an owner key paused it; billing: a refund or dispute left the wallet below zero (a payment that brings it back lifts it).
                             * @enum {string}
                             */
                            kind: "anomaly" | "owner" | "billing";
                            /** @description billing: the balance that paused it */
                            balance_credits?: number;
                            /** @description anomaly: the window judged */
                            window_minutes?: number;
                            /** @description anomaly: live spend in that window */
                            spent_usd?: number;
                            /** @description anomaly: the usual spend of such a window */
                            baseline_usd?: number;
                        } | null;
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** Format: date-time */
                        created_at: string;
                        /**
                         * PlanLimits
                         * @description The plan's limits, as the API enforces them.
                         */
                        limits: {
                            /** @description How many models one comparison may hold on this plan. */
                            models_per_comparison: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDataPolicy: {
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
                        /** @constant */
                        object: "data_policy";
                        /**
                         * @description `off` (default): nothing beyond the request log. `metadata`: request headers (credentials never), status, sizes. `full`: the request and response bodies too, redacted, in the blob store.
                         * @enum {string}
                         */
                        capture: "off" | "metadata" | "full";
                        /** @description Field paths whose values are never kept (`prompt`, `messages[*].content`). */
                        redact_fields: string[];
                        /** @description Regular expressions whose matches are never kept, in any text. API keys, bearer tokens and other credentials are always redacted. */
                        redact_patterns: string[];
                        /** @description Days the request log keeps a row (default 30). */
                        request_log_days: number;
                        generation_days: number | null;
                        file_days: number | null;
                        updated_at: string | null;
                        expiry: {
                            request_log: {
                                /**
                                 * Format: date-time
                                 * @description Rows before this are gone.
                                 */
                                oldest_kept_at: string;
                                /**
                                 * Format: date
                                 * @description The day a row written now is removed.
                                 */
                                written_today_expires_on: string;
                            };
                            generation_records: {
                                oldest_kept_at: string | null;
                                written_today_expires_on: string | null;
                            };
                            files: {
                                oldest_kept_at: string | null;
                                written_today_expires_on: string | null;
                            };
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateDataPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `off` (default): nothing beyond the request log. `metadata`: request headers (credentials never), status, sizes. `full`: the request and response bodies too, redacted, in the blob store.
                     * @enum {string}
                     */
                    capture?: "off" | "metadata" | "full";
                    /** @description Field paths whose values are never kept (`prompt`, `messages[*].content`). */
                    redact_fields?: string[];
                    /** @description Regular expressions whose matches are never kept, in any text. API keys, bearer tokens and other credentials are always redacted. */
                    redact_patterns?: string[];
                    /** @description Days the request log keeps a row (default 30). */
                    request_log_days?: number;
                    generation_days?: number | null;
                    file_days?: number | null;
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
                        /** @constant */
                        object: "data_policy";
                        /**
                         * @description `off` (default): nothing beyond the request log. `metadata`: request headers (credentials never), status, sizes. `full`: the request and response bodies too, redacted, in the blob store.
                         * @enum {string}
                         */
                        capture: "off" | "metadata" | "full";
                        /** @description Field paths whose values are never kept (`prompt`, `messages[*].content`). */
                        redact_fields: string[];
                        /** @description Regular expressions whose matches are never kept, in any text. API keys, bearer tokens and other credentials are always redacted. */
                        redact_patterns: string[];
                        /** @description Days the request log keeps a row (default 30). */
                        request_log_days: number;
                        generation_days: number | null;
                        file_days: number | null;
                        updated_at: string | null;
                        expiry: {
                            request_log: {
                                /**
                                 * Format: date-time
                                 * @description Rows before this are gone.
                                 */
                                oldest_kept_at: string;
                                /**
                                 * Format: date
                                 * @description The day a row written now is removed.
                                 */
                                written_today_expires_on: string;
                            };
                            generation_records: {
                                oldest_kept_at: string | null;
                                written_today_expires_on: string | null;
                            };
                            files: {
                                oldest_kept_at: string | null;
                                written_today_expires_on: string | null;
                            };
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getModerationPolicy: {
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
                        /** @constant */
                        object: "moderation_policy";
                        /**
                         * @description What happens to an output scored at or above `threshold`: flagged (served, marked) or blocked (never served, not charged).
                         * @enum {string}
                         */
                        action: "flag" | "block";
                        /** @description The classifier score (0–1) at or above which an output is acted on. */
                        threshold: number;
                        /** @description Words and phrases a prompt may not contain (case-insensitive, whole words). */
                        prompt_blocklist: string[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateModerationPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action?: "flag" | "block";
                    threshold?: number;
                    prompt_blocklist?: string[];
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
                        /** @constant */
                        object: "moderation_policy";
                        /**
                         * @description What happens to an output scored at or above `threshold`: flagged (served, marked) or blocked (never served, not charged).
                         * @enum {string}
                         */
                        action: "flag" | "block";
                        /** @description The classifier score (0–1) at or above which an output is acted on. */
                        threshold: number;
                        /** @description Words and phrases a prompt may not contain (case-insensitive, whole words). */
                        prompt_blocklist: string[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWallet: {
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
                        /** @constant */
                        object: "wallet";
                        /** @description Credits owned; 1 credit = US$0.001. */
                        balance_credits: number;
                        /** @description Credits reserved for generations in flight. */
                        held_credits: number;
                        /** @description balance − held: what new requests can reserve. */
                        available_credits: number;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBilling: {
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
                        /** @constant */
                        object: "billing";
                        /** @description Whether credits can be bought here (the operator configured Stripe). */
                        enabled: boolean;
                        currency: string | null;
                        min_amount: number | null;
                        max_amount: number | null;
                        credits_per_unit: number | null;
                        /** @description A card is saved for automatic top-ups. */
                        payment_method_saved: boolean;
                        /** AutoTopup */
                        auto_topup: {
                            enabled: boolean;
                            threshold_credits: number | null;
                            amount: number | null;
                            monthly_cap: number | null;
                            /** @description Failed automatic payments in a row; auto top-up stops at max_failures. */
                            consecutive_failures: number;
                            last_error: string | null;
                            max_failures: number | null;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description In the currency's smallest unit (cents). */
                    amount: number;
                    /**
                     * Format: uri
                     * @description Where Stripe sends the customer back (Checkout adds `checkout_session_id`); default: the dashboard's Billing page. Must be on this instance.
                     */
                    return_url?: string;
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
                        /** @constant */
                        object: "checkout_session";
                        /** @description Stripe's Checkout Session id (cs_…). */
                        id: string;
                        payment_id: string | null;
                        /** @description Stripe's hosted Checkout page: send the customer there. */
                        url: string;
                        amount: number | null;
                        currency: string;
                        credits: number | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCheckout: {
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
                        /** @constant */
                        object: "checkout_result";
                        id: string;
                        status: string;
                        payment: {
                            /** @constant */
                            object: "billing_entry";
                            id: string;
                            /** @enum {string} */
                            type: "payment" | "auto_topup" | "refund" | "dispute";
                            /** @description payment: pending, succeeded, failed, requires_action, canceled; refund: succeeded; dispute: open, won, lost. */
                            status: string;
                            payment_id: string;
                            /** @description In the currency's smallest unit. */
                            amount: number;
                            currency: string;
                            /** @description Credits moved: positive for a credited payment, negative for a refund or a dispute still held or lost, 0 otherwise. */
                            credits: number;
                            receipt_url: string | null;
                            failure_message: string | null;
                            /** Format: date-time */
                            created_at: string;
                        } | null;
                        /** Wallet */
                        wallet: {
                            /** @constant */
                            object: "wallet";
                            /** @description Credits owned; 1 credit = US$0.001. */
                            balance_credits: number;
                            /** @description Credits reserved for generations in flight. */
                            held_credits: number;
                            /** @description balance − held: what new requests can reserve. */
                            available_credits: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPaymentMethodSetup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where Stripe sends the customer back (Checkout adds `checkout_session_id`); default: the dashboard's Billing page. Must be on this instance.
                     */
                    return_url?: string;
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
                        /** @constant */
                        object: "checkout_session";
                        /** @description Stripe's Checkout Session id (cs_…). */
                        id: string;
                        payment_id: string | null;
                        /** @description Stripe's hosted Checkout page: send the customer there. */
                        url: string;
                        amount: number | null;
                        currency: string;
                        credits: number | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAutoTopup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                    threshold_credits: number | null;
                    amount: number | null;
                    monthly_cap: number | null;
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
                        /** @constant */
                        object: "billing";
                        /** @description Whether credits can be bought here (the operator configured Stripe). */
                        enabled: boolean;
                        currency: string | null;
                        min_amount: number | null;
                        max_amount: number | null;
                        credits_per_unit: number | null;
                        /** @description A card is saved for automatic top-ups. */
                        payment_method_saved: boolean;
                        /** AutoTopup */
                        auto_topup: {
                            enabled: boolean;
                            threshold_credits: number | null;
                            amount: number | null;
                            monthly_cap: number | null;
                            /** @description Failed automatic payments in a row; auto top-up stops at max_failures. */
                            consecutive_failures: number;
                            last_error: string | null;
                            max_failures: number | null;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPayments: {
        parameters: {
            query?: {
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @constant */
                            object: "billing_entry";
                            id: string;
                            /** @enum {string} */
                            type: "payment" | "auto_topup" | "refund" | "dispute";
                            /** @description payment: pending, succeeded, failed, requires_action, canceled; refund: succeeded; dispute: open, won, lost. */
                            status: string;
                            payment_id: string;
                            /** @description In the currency's smallest unit. */
                            amount: number;
                            currency: string;
                            /** @description Credits moved: positive for a credited payment, negative for a refund or a dispute still held or lost, 0 otherwise. */
                            credits: number;
                            receipt_url: string | null;
                            failure_message: string | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveStripeEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": string;
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
                        received: boolean;
                        outcome: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description key_… */
                            id: string;
                            /** @constant */
                            object: "api_key";
                            name: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys').
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            scopes: string[];
                            ipAllowlist: string[];
                            monthly_budget_usd: number | null;
                            /** @enum {string} */
                            budget_action: "notify" | "block";
                            /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                            spent_usd: number;
                            /** @description The first characters of the secret, to recognize it. */
                            prefix: string;
                            /** Format: date-time */
                            created_at: string;
                            last_used_at: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    mode?: "live" | "test";
                    /** @enum {string} */
                    role?: "viewer" | "developer" | "admin" | "owner";
                    /** @description Empty: every operation the role allows. */
                    scopes?: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                    /** @description IPv4/IPv6 CIDR ranges (Enterprise). */
                    ipAllowlist?: string[];
                    monthly_budget_usd?: number | null;
                    /**
                     * @description `notify` (default): usage.budget_threshold events only. `block`: a request whose reservation would take the month's spend past the budget is refused with 402 budget_exceeded.
                     * @enum {string}
                     */
                    budget_action?: "notify" | "block";
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
                        /** @description key_… */
                        id: string;
                        /** @constant */
                        object: "api_key";
                        name: string;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /**
                         * @description What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys').
                         * @enum {string}
                         */
                        effective_role: "viewer" | "developer" | "admin" | "owner";
                        scopes: string[];
                        ipAllowlist: string[];
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** @description The first characters of the secret, to recognize it. */
                        prefix: string;
                        /** Format: date-time */
                        created_at: string;
                        last_used_at: string | null;
                        /** @description The secret. Returned only here; store it now. */
                        key: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCurrentApiKey: {
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
                        /** @description key_… */
                        id: string;
                        /** @constant */
                        object: "api_key";
                        name: string;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /**
                         * @description What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys').
                         * @enum {string}
                         */
                        effective_role: "viewer" | "developer" | "admin" | "owner";
                        scopes: string[];
                        ipAllowlist: string[];
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** @description The first characters of the secret, to recognize it. */
                        prefix: string;
                        /** Format: date-time */
                        created_at: string;
                        last_used_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiKey: {
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
                        /** @description key_… */
                        id: string;
                        /** @constant */
                        object: "api_key";
                        name: string;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /**
                         * @description What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys').
                         * @enum {string}
                         */
                        effective_role: "viewer" | "developer" | "admin" | "owner";
                        scopes: string[];
                        ipAllowlist: string[];
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** @description The first characters of the secret, to recognize it. */
                        prefix: string;
                        /** Format: date-time */
                        created_at: string;
                        last_used_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiKey: {
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
                        id: string;
                        /** @constant */
                        object: "api_key";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description Empty: every operation the role allows. */
                    scopes?: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                    /** @description IPv4/IPv6 CIDR ranges (Enterprise). */
                    ipAllowlist?: string[];
                    monthly_budget_usd?: number | null;
                    /**
                     * @description `notify` (default): usage.budget_threshold events only. `block`: a request whose reservation would take the month's spend past the budget is refused with 402 budget_exceeded.
                     * @enum {string}
                     */
                    budget_action?: "notify" | "block";
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
                        /** @description key_… */
                        id: string;
                        /** @constant */
                        object: "api_key";
                        name: string;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /**
                         * @description What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys').
                         * @enum {string}
                         */
                        effective_role: "viewer" | "developer" | "admin" | "owner";
                        scopes: string[];
                        ipAllowlist: string[];
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars. */
                        spent_usd: number;
                        /** @description The first characters of the secret, to recognize it. */
                        prefix: string;
                        /** Format: date-time */
                        created_at: string;
                        last_used_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSession: {
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                    organization_id?: string;
                    /** @enum {string} */
                    mode?: "live" | "test";
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signOut: {
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
                        id: string;
                        /** @constant */
                        object: "session";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    switchSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    organization_id?: string;
                    /** @enum {string} */
                    mode?: "live" | "test";
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signInWithKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description sk_live_… or sk_test_… */
                    api_key: string;
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    passkey_after_password?: boolean;
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
                        /** @description acc_… */
                        id: string;
                        /** @constant */
                        object: "account";
                        email: string;
                        name: string | null;
                        has_password: boolean;
                        /** @description A password sign-in also needs one of the person's passkeys. */
                        passkey_after_password: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSessions: {
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
                        /** @constant */
                        object: "list";
                        data: {
                            id: string;
                            /** @constant */
                            object: "session";
                            /** @description The session this request came with. */
                            current: boolean;
                            method: string;
                            ip: string | null;
                            user_agent: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            last_seen_at: string;
                            /** Format: date-time */
                            expires_at: string;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeSession: {
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
                        id: string;
                        /** @constant */
                        object: "session";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listMembers: {
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
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description usr_… */
                            id: string;
                            /** @constant */
                            object: "member";
                            email: string | null;
                            name: string | null;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            monthly_budget_usd: number | null;
                            /** @enum {string} */
                            budget_action: "notify" | "block";
                            /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars, of all of the member's keys (revoked ones and their dashboard sessions' included). */
                            spent_usd: number;
                            /** Format: date-time */
                            created_at: string;
                            last_signed_in_at: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMember: {
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
                        /** @description usr_… */
                        id: string;
                        /** @constant */
                        object: "member";
                        email: string | null;
                        name: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars, of all of the member's keys (revoked ones and their dashboard sessions' included). */
                        spent_usd: number;
                        /** Format: date-time */
                        created_at: string;
                        last_signed_in_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removeMember: {
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
                        id: string;
                        /** @constant */
                        object: "member";
                        /** @constant */
                        deleted: true;
                        /** @description How many of the member's keys (dashboard session keys included) were revoked. */
                        revoked_keys: number;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    role?: "viewer" | "developer" | "admin" | "owner";
                    monthly_budget_usd?: number | null;
                    /**
                     * @description `notify` (default): usage.budget_threshold events only. `block`: a request whose reservation would take the month's spend past the budget is refused with 402 budget_exceeded.
                     * @enum {string}
                     */
                    budget_action?: "notify" | "block";
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
                        /** @description usr_… */
                        id: string;
                        /** @constant */
                        object: "member";
                        email: string | null;
                        name: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        monthly_budget_usd: number | null;
                        /** @enum {string} */
                        budget_action: "notify" | "block";
                        /** @description Live credits charged this calendar month (UTC) plus those held now, in US dollars, of all of the member's keys (revoked ones and their dashboard sessions' included). */
                        spent_usd: number;
                        /** Format: date-time */
                        created_at: string;
                        last_signed_in_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listInvitations: {
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
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description inv_… */
                            id: string;
                            /** @constant */
                            object: "invitation";
                            email: string | null;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            invited_by: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            expires_at: string;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    /** @enum {string} */
                    role: "viewer" | "developer" | "admin" | "owner";
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
                        /** @description inv_… */
                        id: string;
                        /** @constant */
                        object: "invitation";
                        email: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin" | "owner";
                        invited_by: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description The link that accepts it: returned only here, to copy (it is also mailed when SMTP is configured). */
                        url: string;
                        /**
                         * @description Whether the invitation was mailed.
                         * @enum {string}
                         */
                        mail: "sent" | "not_configured" | "failed";
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeInvitation: {
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
                        id: string;
                        /** @constant */
                        object: "invitation";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    acceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                    email?: string;
                    /** @description The new account's password; not used when a signed-in person joins. */
                    password?: string;
                    name?: string;
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPasskeyRegistrationOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PublicKeyCredentialCreationOptionsJSON: pass to @simplewebauthn/browser startRegistration (or PublicKeyCredential.parseCreationOptionsFromJSON). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description base64url; usable once, for five minutes. */
                        challenge: string;
                        rp: {
                            id?: string;
                            name: string;
                        } & {
                            [key: string]: unknown;
                        };
                        user: {
                            id: string;
                            name: string;
                            displayName: string;
                        } & {
                            [key: string]: unknown;
                        };
                        pubKeyCredParams: ({
                            alg: number;
                            type: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPasskeys: {
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
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description pky_… */
                            id: string;
                            /** @constant */
                            object: "passkey";
                            name: string;
                            /**
                             * @description multiDevice: a synced passkey (it may be backed up to the person's other devices).
                             * @enum {string}
                             */
                            device_type: "singleDevice" | "multiDevice";
                            backed_up: boolean;
                            transports: string[];
                            /** Format: date-time */
                            created_at: string;
                            last_used_at: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * PasskeyRegistrationCredential
                     * @description The answer of navigator.credentials.create() in its JSON form (PublicKeyCredential.toJSON(), or @simplewebauthn/browser startRegistration).
                     */
                    credential: {
                        id: string;
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        response: {
                            clientDataJSON: string;
                            attestationObject: string;
                            authenticatorData?: string;
                            transports?: string[];
                            publicKeyAlgorithm?: number;
                            publicKey?: string;
                        };
                        /** @description getClientExtensionResults(), as the browser returned it. */
                        clientExtensionResults: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                    };
                    /** @description What the person calls it; default "Passkey N". */
                    name?: string;
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
                        /** @description pky_… */
                        id: string;
                        /** @constant */
                        object: "passkey";
                        name: string;
                        /**
                         * @description multiDevice: a synced passkey (it may be backed up to the person's other devices).
                         * @enum {string}
                         */
                        device_type: "singleDevice" | "multiDevice";
                        backed_up: boolean;
                        transports: string[];
                        /** Format: date-time */
                        created_at: string;
                        last_used_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removePasskey: {
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
                        id: string;
                        /** @constant */
                        object: "passkey";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPasskeySignInOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PublicKeyCredentialRequestOptionsJSON: pass to @simplewebauthn/browser startAuthentication (or PublicKeyCredential.parseRequestOptionsFromJSON). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description base64url; usable once, for five minutes. */
                        challenge: string;
                        rpId?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signInWithPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * PasskeyAssertion
                     * @description The answer of navigator.credentials.get() in its JSON form (PublicKeyCredential.toJSON(), or @simplewebauthn/browser startAuthentication).
                     */
                    credential: {
                        id: string;
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        response: {
                            clientDataJSON: string;
                            authenticatorData: string;
                            signature: string;
                            userHandle?: string;
                        };
                        /** @description getClientExtensionResults(), as the browser returned it. */
                        clientExtensionResults: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                    };
                    organization_id?: string;
                    /** @enum {string} */
                    mode?: "live" | "test";
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSecondFactorOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PublicKeyCredentialRequestOptionsJSON: pass to @simplewebauthn/browser startAuthentication (or PublicKeyCredential.parseRequestOptionsFromJSON). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description base64url; usable once, for five minutes. */
                        challenge: string;
                        rpId?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    finishSecondFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * PasskeyAssertion
                     * @description The answer of navigator.credentials.get() in its JSON form (PublicKeyCredential.toJSON(), or @simplewebauthn/browser startAuthentication).
                     */
                    credential: {
                        id: string;
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        response: {
                            clientDataJSON: string;
                            authenticatorData: string;
                            signature: string;
                            userHandle?: string;
                        };
                        /** @description getClientExtensionResults(), as the browser returned it. */
                        clientExtensionResults: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                    };
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSignUpSettings: {
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
                        /** @constant */
                        object: "sign_up_settings";
                        /** @description POST /v1/sign-up is accepted. */
                        open: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signUp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
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
                        /** @constant */
                        object: "sign_up";
                        email: string;
                        /** @constant */
                        status: "verification_sent";
                        /** Format: date-time */
                        expires_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifySignUp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    token: string;
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
                        /** @description ses_… */
                        id: string;
                        /** @constant */
                        object: "session";
                        /**
                         * @description person: signed in with an account (password, passkey, single sign-on, invitation, sign-up). api_key: opened with an API key (POST /v1/session/key); it acts exactly as that key.
                         * @enum {string}
                         */
                        kind: "person" | "api_key";
                        /** @description The person signed in; null for a session opened with an API key. */
                        account: {
                            id: string;
                            email: string;
                            name: string | null;
                            has_password: boolean;
                            /** @description A password sign-in of this person also needs one of their passkeys (PATCH /v1/account). */
                            passkey_after_password: boolean;
                        } | null;
                        /** @description The key a session opened with an API key acts as; null for a person's session. */
                        api_key: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            /** @description The first characters of the key, as listed by GET /v1/api-keys (never the secret). */
                            prefix: string;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                            /**
                             * @description What the key may do now: the lesser of `role` and its member's role.
                             * @enum {string}
                             */
                            effective_role: "viewer" | "developer" | "admin" | "owner";
                            /** @description Empty: every operation the role allows. */
                            scopes: ("images:write" | "videos:write" | "voice:write" | "music:write" | "avatars:write" | "chat:write" | "three-d:write" | "upscale:write" | "generations:read" | "generations:write" | "uploads:write" | "usage:read" | "webhooks:manage" | "api_keys:manage" | "members:manage")[];
                        } | null;
                        /** @description The organization the session acts in now. */
                        organization_id: string;
                        /** @description The membership the session acts as (for a key's session, the member the key belongs to). */
                        member_id: string;
                        /**
                         * @description The role the session acts with: the member's, or for a key's session the key's effective role.
                         * @enum {string}
                         */
                        role: "viewer" | "developer" | "admin" | "owner";
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** @description How the session was opened: password, passkey, password_passkey (a password, then a passkey), sso, invitation, sign_up or api_key. */
                        method: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        expires_at: string;
                        /** @description Every organization the person belongs to; switch with PATCH /v1/session. Empty for a key's session (a key belongs to one organization and mode). */
                        memberships: {
                            organization_id: string;
                            organization_name: string;
                            /** @description usr_…: the person in that organization. */
                            member_id: string;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin" | "owner";
                        }[];
                        /** @description Send it in X-CSRF-Token with every request that changes something (it is also in the readable mmgen_csrf cookie). */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSsoSettings: {
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
                        /** @constant */
                        object: "sso_settings";
                        issuer: string;
                        client_id: string;
                        /** @description The secret itself is never answered. */
                        has_client_secret: boolean;
                        /** @description People whose verified email is at one of these domains join on their first sign-in. */
                        auto_join_domains: string[];
                        /** @enum {string} */
                        auto_join_role: "viewer" | "developer" | "admin" | "owner";
                        /** @description Everyone but the break-glass owner must sign in through the issuer. */
                        require_sso: boolean;
                        break_glass_member_id: string | null;
                        /** @description Register this as the client's redirect URI at the issuer. */
                        redirect_uri: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateSsoSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    issuer: string;
                    client_id: string;
                    client_secret?: string | null;
                    auto_join_domains?: string[];
                    /** @enum {string} */
                    auto_join_role?: "admin" | "developer" | "viewer";
                    require_sso?: boolean;
                    break_glass_member_id?: string | null;
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
                        /** @constant */
                        object: "sso_settings";
                        issuer: string;
                        client_id: string;
                        /** @description The secret itself is never answered. */
                        has_client_secret: boolean;
                        /** @description People whose verified email is at one of these domains join on their first sign-in. */
                        auto_join_domains: string[];
                        /** @enum {string} */
                        auto_join_role: "viewer" | "developer" | "admin" | "owner";
                        /** @description Everyone but the break-glass owner must sign in through the issuer. */
                        require_sso: boolean;
                        break_glass_member_id: string | null;
                        /** @description Register this as the client's redirect URI at the issuer. */
                        redirect_uri: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSsoSettings: {
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
                        /** @constant */
                        object: "sso_settings";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startSsoSignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    organization_id: string;
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
                        authorization_url: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    finishSsoSignIn: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
                iss?: string;
                session_state?: string;
                error?: string;
                error_description?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To /dashboard, signed in. */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createImage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    /** @description upl_… of a completed upload. */
                    upload_id?: string;
                    /**
                     * Format: uri
                     * @description An https URL mmgen fetches.
                     */
                    image_url?: string;
                    prompt: string;
                    negative_prompt?: string;
                    /** @default 1 */
                    num_outputs?: number;
                    /** @default 1024 */
                    width?: number;
                    /** @default 1024 */
                    height?: number;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createVideo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    /** @description upl_… of a completed upload. */
                    upload_id?: string;
                    /**
                     * Format: uri
                     * @description An https URL mmgen fetches.
                     */
                    image_url?: string;
                    prompt: string;
                    /** @default 5 */
                    duration_s?: number;
                    /**
                     * @default 16:9
                     * @enum {string}
                     */
                    aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4" | "21:9";
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                        generation_id: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createVoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    text: string;
                    voice_id?: string;
                    language?: string;
                    speed?: number;
                    /** @description How to speak it (tone, pace, accent), for the models that take it (their parameters list it). */
                    instructions?: string;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMusic: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    prompt: string;
                    /** @default 30 */
                    duration_s?: number;
                    /** @default false */
                    with_vocals?: boolean;
                    lyrics?: string;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAvatar: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    /** @description upl_… of a completed upload. */
                    upload_id?: string;
                    /**
                     * Format: uri
                     * @description An https URL mmgen fetches.
                     */
                    image_url?: string;
                    text?: string;
                    voice_id?: string;
                    /** Format: uri */
                    audio_url?: string;
                    /** @description An upload of audio/mpeg or audio/wav (POST /v1/uploads). */
                    audio_upload_id?: string;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createChat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    messages: {
                        /** @enum {string} */
                        role: "system" | "user" | "assistant";
                        content: string;
                    }[];
                    /** @default 1024 */
                    max_tokens?: number;
                    temperature?: number;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createChatCompletion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    model: string;
                    messages: {
                        /** @enum {string} */
                        role: "system" | "developer" | "user" | "assistant";
                        content: string | {
                            /** @constant */
                            type: "text";
                            text: string;
                        }[];
                        name?: string;
                    }[];
                    max_tokens?: number;
                    max_completion_tokens?: number;
                    temperature?: number;
                    top_p?: number;
                    /** @description Only 1 is supported. */
                    n?: number;
                    stream?: boolean;
                    stream_options?: {
                        include_usage?: boolean;
                    } | null;
                    stop?: (string | string[]) | null;
                    seed?: number;
                    presence_penalty?: number;
                    frequency_penalty?: number;
                    user?: string;
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
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
                        /** @description The generation id (gen_…). */
                        id: string;
                        /** @constant */
                        object: "chat.completion";
                        created: number;
                        model: string;
                        choices: {
                            index: number;
                            message: {
                                /** @constant */
                                role: "assistant";
                                content: string;
                                refusal: null;
                            };
                            finish_reason: string;
                            logprobs: null;
                        }[];
                        usage: {
                            prompt_tokens: number;
                            completion_tokens: number;
                            total_tokens: number;
                            /** @description What this completion was charged, in US dollars (charged credits × 0.001), as OpenRouter's usage.cost. Also in the X-Mmgen-Cost-Credits header, in credits. */
                            cost: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createOpenAiImage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description An mmgen slug, mdl_ id, or an alias such as a provider's model id. */
                    model: string;
                    prompt: string;
                    /** @description num_outputs; the model decides how many it can make (mmgen: up to 4). */
                    n?: number;
                    /** @description "WIDTHxHEIGHT" (256–2048, multiples of 8), or "auto" for the model's default. */
                    size?: string;
                    /**
                     * @description Only "auto" is taken: mmgen does not choose a quality.
                     * @enum {string}
                     */
                    quality?: "auto" | "standard" | "hd" | "low" | "medium" | "high";
                    /**
                     * @description Default b64_json (as OpenAI's current image models answer); url for a signed URL of the stored image.
                     * @enum {string}
                     */
                    response_format?: "url" | "b64_json";
                    /**
                     * @description Re-encodes the image (with b64_json).
                     * @enum {string}
                     */
                    output_format?: "png" | "jpeg" | "webp";
                    /** @description Quality of a JPEG or WebP re-encoding (with b64_json). */
                    output_compression?: number;
                    /**
                     * @description Only "auto" is taken.
                     * @enum {string}
                     */
                    background?: "auto" | "transparent" | "opaque";
                    /**
                     * @description Only "auto": outputs are moderated by the organization's policy.
                     * @enum {string}
                     */
                    moderation?: "auto" | "low";
                    /**
                     * @description No model mmgen serves takes a style: 400.
                     * @enum {string}
                     */
                    style?: "vivid" | "natural";
                    /** @description Accepted and not used. */
                    user?: string;
                    seed?: number;
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
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
                        created: number;
                        data: {
                            /** @description A signed URL of the output (expires after an hour). */
                            url?: string;
                            b64_json?: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blocked by moderation: content_blocked */
            451: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createOpenAiImageEdit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** @description An mmgen slug, mdl_ id, or an alias such as a provider's model id. */
                    model: string;
                    prompt: string;
                    /** @description num_outputs; the model decides how many it can make (mmgen: up to 4). */
                    n?: number;
                    /** @description "WIDTHxHEIGHT" (256–2048, multiples of 8), or "auto" for the model's default. */
                    size?: string;
                    /**
                     * @description Only "auto" is taken: mmgen does not choose a quality.
                     * @enum {string}
                     */
                    quality?: "auto" | "standard" | "hd" | "low" | "medium" | "high";
                    /**
                     * @description Default b64_json (as OpenAI's current image models answer); url for a signed URL of the stored image.
                     * @enum {string}
                     */
                    response_format?: "url" | "b64_json";
                    /**
                     * @description Re-encodes the image (with b64_json).
                     * @enum {string}
                     */
                    output_format?: "png" | "jpeg" | "webp";
                    /** @description Quality of a JPEG or WebP re-encoding (with b64_json). */
                    output_compression?: number;
                    /**
                     * @description Only "auto" is taken.
                     * @enum {string}
                     */
                    background?: "auto" | "transparent" | "opaque";
                    /**
                     * @description Only "auto": outputs are moderated by the organization's policy.
                     * @enum {string}
                     */
                    moderation?: "auto" | "low";
                    /**
                     * @description No model mmgen serves takes a style: 400.
                     * @enum {string}
                     */
                    style?: "vivid" | "natural";
                    /** @description Accepted and not used. */
                    user?: string;
                    seed?: number;
                    cache?: boolean;
                    /** @description The input image (one part; `image[]` is read as `image`). */
                    image: string;
                    /** @description Not taken: 400. */
                    mask?: string;
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
                        created: number;
                        data: {
                            /** @description A signed URL of the output (expires after an hour). */
                            url?: string;
                            b64_json?: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blocked by moderation: content_blocked */
            451: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createOpenAiSpeech: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description An mmgen slug, mdl_ id, or an alias such as a provider's model id. */
                    model: string;
                    /** @description The text; charged per 1,000 characters. */
                    input: string;
                    /** @description voice_id: one of the model's voices (GET /v1/models/{model}). */
                    voice?: string;
                    /**
                     * @description pcm: raw 24 kHz 16-bit little-endian mono.
                     * @default mp3
                     * @enum {string}
                     */
                    response_format?: "mp3" | "wav" | "opus" | "aac" | "flac" | "pcm";
                    /** @description Held to the model's range. */
                    speed?: number;
                    /** @description How to speak it, for the models that take it (gpt-4o-mini-tts); another model's answer is 400 naming it. Empty says nothing. */
                    instructions?: string;
                    /**
                     * @description Only "audio".
                     * @enum {string}
                     */
                    stream_format?: "audio" | "sse";
                    seed?: number;
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                };
            };
        };
        responses: {
            /** @description The audio, as audio/mpeg, audio/wav, audio/ogg (Opus), audio/aac, audio/flac or audio/pcm */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blocked by moderation: content_blocked */
            451: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A chat model's slug, mdl_ id or alias (claude-haiku-4-5), whatever its provider. */
                    model: string;
                    max_tokens: number;
                    messages: {
                        /** @enum {string} */
                        role: "user" | "assistant";
                        content: string | ({
                            /** @description Only 'text' is served; any other block type is refused with 400 parameter_invalid. */
                            type: string;
                            text?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                    }[];
                    system?: string | {
                        /** @constant */
                        type: "text";
                        text: string;
                        /** @description Accepted and ignored. */
                        cache_control?: unknown;
                        /** @description Accepted and ignored. */
                        citations?: unknown;
                    }[];
                    temperature?: number;
                    top_p?: number;
                    /** @description Sent to the models whose API takes it (Anthropic's); not to others. */
                    top_k?: number;
                    stop_sequences?: string[];
                    metadata?: {
                        user_id?: string | null;
                    };
                    stream?: boolean;
                    /** @description Not served (mmgen's chat takes text): 400 parameter_invalid. */
                    tools?: unknown;
                    /** @description Not served (mmgen's chat takes text): 400 parameter_invalid. */
                    tool_choice?: unknown;
                    /** @description Not served (mmgen's chat takes text): 400 parameter_invalid. */
                    thinking?: unknown;
                    /** @description mmgen: makes the reply reproducible and cacheable. */
                    seed?: number;
                    /** @description mmgen: false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
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
                        /** @description The generation id (gen_…). */
                        id: string;
                        /** @constant */
                        type: "message";
                        /** @constant */
                        role: "assistant";
                        content: {
                            /** @constant */
                            type: "text";
                            text: string;
                        }[];
                        model: string;
                        stop_reason: ("end_turn" | "max_tokens" | "stop_sequence" | "refusal") | null;
                        stop_sequence: string | null;
                        usage: {
                            input_tokens: number;
                            output_tokens: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createResponse: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A chat model's slug, mdl_ id or alias, whatever its provider. */
                    model: string;
                    input: string | ({
                        /** @description 'message', or 'item_reference' to an earlier response's output message (msg_gen_…); any other item type is refused with 400 parameter_invalid. */
                        type?: string;
                        /** @description user, assistant, system or developer (developer is read as system). */
                        role?: string;
                        content?: string | ({
                            /** @description 'input_text' or 'output_text'; any other part type is refused with 400 parameter_invalid. */
                            type: string;
                            text?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    })[];
                    instructions?: string | null;
                    max_output_tokens?: number | null;
                    temperature?: number | null;
                    top_p?: number | null;
                    stream?: boolean | null;
                    /** @description Accepted and ignored. */
                    stream_options?: {
                        include_obfuscation?: boolean;
                    } | null;
                    user?: string;
                    metadata?: {
                        [key: string]: string;
                    } | null;
                    /** @description Accepted; mmgen keeps every generation (GET /v1/generations/{id}) whatever its value. */
                    store?: boolean | null;
                    text?: {
                        format?: {
                            type: string;
                        } & {
                            [key: string]: unknown;
                        };
                        verbosity?: string | null;
                    } | null;
                    /** @description Not served (mmgen's chat takes and returns text): 400 parameter_invalid. An empty list is accepted. */
                    tools?: unknown;
                    /** @description Only 'none' or 'auto' (there are no tools). */
                    tool_choice?: unknown;
                    /** @description Accepted and ignored. */
                    parallel_tool_calls?: boolean | null;
                    /** @description Accepted and ignored. */
                    max_tool_calls?: number | null;
                    /** @description Not served (mmgen's chat takes and returns text): 400 parameter_invalid. null is accepted. */
                    previous_response_id?: unknown;
                    /** @description Not served (mmgen's chat takes and returns text): 400 parameter_invalid. null is accepted. */
                    conversation?: unknown;
                    /** @description Not served (mmgen's chat takes and returns text): 400 parameter_invalid. null is accepted. */
                    prompt?: unknown;
                    /** @description Accepted only without an effort (or summary): 400 parameter_invalid otherwise. */
                    reasoning?: unknown;
                    /** @description Accepted (mmgen's replies have none of the included items) except 'message.output_text.logprobs'. */
                    include?: string[] | null;
                    /** @description Only 0. */
                    top_logprobs?: number | null;
                    /** @description Accepted and ignored. */
                    truncation?: ("auto" | "disabled") | null;
                    /** @description Accepted and ignored. */
                    service_tier?: string | null;
                    background?: boolean | null;
                    /** @description Accepted and ignored. */
                    prompt_cache_key?: string;
                    /** @description Accepted and ignored. */
                    prompt_cache_retention?: string | null;
                    /** @description Accepted and ignored. */
                    safety_identifier?: string;
                    /** @description mmgen: makes the reply reproducible and cacheable. */
                    seed?: number;
                    /** @description mmgen: false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
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
                        /** @description The generation id (gen_…). */
                        id: string;
                        /** @constant */
                        object: "response";
                        created_at: number;
                        /** @enum {string} */
                        status: "completed" | "incomplete" | "in_progress" | "failed";
                        model: string;
                        output: {
                            /** @constant */
                            type: "message";
                            id: string;
                            /** @enum {string} */
                            status: "in_progress" | "completed" | "incomplete";
                            /** @constant */
                            role: "assistant";
                            content: {
                                /** @constant */
                                type: "output_text";
                                text: string;
                                annotations: unknown[];
                                logprobs: unknown[];
                            }[];
                        }[];
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                            total_tokens: number;
                            input_tokens_details: {
                                cached_tokens: number;
                                cache_write_tokens: number;
                            };
                            output_tokens_details: {
                                reasoning_tokens: number;
                            };
                        };
                        error: {
                            code: string;
                            message: string;
                        } | null;
                        incomplete_details: {
                            reason: string;
                        } | null;
                        instructions: string | null;
                        max_output_tokens: number | null;
                        temperature: number | null;
                        top_p: number | null;
                        metadata: {
                            [key: string]: string;
                        };
                        parallel_tool_calls: boolean;
                        tool_choice: string;
                        tools: unknown[];
                        text: {
                            format: {
                                /** @constant */
                                type: "text";
                            };
                        };
                        previous_response_id: null;
                        reasoning: null;
                        store: boolean;
                        truncation: string;
                        /** @description Echoed when the request gave one. */
                        user?: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upstream error: upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createThreeD: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    /** @description upl_… of a completed upload. */
                    upload_id?: string;
                    /**
                     * Format: uri
                     * @description An https URL mmgen fetches.
                     */
                    image_url?: string;
                    prompt?: string;
                    /**
                     * @default glb
                     * @enum {string}
                     */
                    format?: "glb";
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createUpscale: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                    /** @description Makes the result reproducible and cacheable. */
                    seed?: number;
                    /** @description false: never answer from the cache. */
                    cache?: boolean;
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
                    /** @description upl_… of a completed upload. */
                    upload_id?: string;
                    /**
                     * Format: uri
                     * @description An https URL mmgen fetches.
                     */
                    image_url?: string;
                    /**
                     * @default 2
                     * @enum {integer}
                     */
                    scale?: 2 | 4;
                    /** @default false */
                    face_restore?: boolean;
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getGeneration: {
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listGenerations: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
                status?: "queued" | "running" | "succeeded" | "failed" | "canceled";
                modality?: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description gen_… */
                            id: string;
                            /** @constant */
                            object: "generation";
                            /** @enum {string} */
                            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                            /** @enum {string} */
                            modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                            model: string;
                            prompt: string | null;
                            params: {
                                [key: string]: unknown;
                            };
                            reserved_credits: number;
                            charged_credits: number;
                            refunded_credits: number;
                            price_version: string | null;
                            cache_hit: boolean;
                            outputs: {
                                /** @description out_… */
                                id: string;
                                /** @enum {string} */
                                type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                                mime: string;
                                width: number | null;
                                height: number | null;
                                duration_s: string | null;
                                /**
                                 * Format: uri
                                 * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                                 */
                                url: string;
                                /** @enum {string} */
                                moderation_status: "pending" | "approved" | "flagged" | "blocked";
                            }[];
                            error: {
                                type: string;
                                code: string;
                                message: string;
                            } | null;
                            comparison_id: string | null;
                            livemode: boolean;
                            /** Format: date-time */
                            created_at: string;
                            completed_at: string | null;
                            prompt_expired_at: string | null;
                            files_expired_at: string | null;
                            message?: {
                                /** @constant */
                                role: "assistant";
                                content: string;
                            } | null;
                            usage?: {
                                input_tokens: number;
                                output_tokens: number;
                            } | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelGeneration: {
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
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    retryGeneration: {
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
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description gen_… */
                        id: string;
                        /** @constant */
                        object: "generation";
                        /** @enum {string} */
                        status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        model: string;
                        prompt: string | null;
                        params: {
                            [key: string]: unknown;
                        };
                        reserved_credits: number;
                        charged_credits: number;
                        refunded_credits: number;
                        price_version: string | null;
                        cache_hit: boolean;
                        outputs: {
                            /** @description out_… */
                            id: string;
                            /** @enum {string} */
                            type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                            mime: string;
                            width: number | null;
                            height: number | null;
                            duration_s: string | null;
                            /**
                             * Format: uri
                             * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                             */
                            url: string;
                            /** @enum {string} */
                            moderation_status: "pending" | "approved" | "flagged" | "blocked";
                        }[];
                        error: {
                            type: string;
                            code: string;
                            message: string;
                        } | null;
                        comparison_id: string | null;
                        livemode: boolean;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                        prompt_expired_at: string | null;
                        files_expired_at: string | null;
                        message?: {
                            /** @constant */
                            role: "assistant";
                            content: string;
                        } | null;
                        usage?: {
                            input_tokens: number;
                            output_tokens: number;
                        } | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    streamGenerationEvents: {
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
            /** @description text/event-stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createComparison: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    models: string[];
                    prompt?: string;
                    /** @description The modality's request fields (as for its own endpoint), applied to every model. */
                    params?: {
                        [key: string]: unknown;
                    };
                    /** @description Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
                    simulate?: {
                        /** @enum {string} */
                        outcome?: "success" | "failure" | "lost";
                        delay_ms?: number;
                        output_tokens?: number;
                        /**
                         * @description The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each).
                         * @enum {string}
                         */
                        moderation?: "approved" | "flagged" | "blocked";
                    };
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
                        /** @description cmp_… */
                        id: string;
                        /** @constant */
                        object: "comparison";
                        /** @enum {string} */
                        status: "queued" | "running" | "completed";
                        modality: string;
                        prompt: string | null;
                        models: string[];
                        generations: {
                            /** @description gen_… */
                            id: string;
                            /** @constant */
                            object: "generation";
                            /** @enum {string} */
                            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                            /** @enum {string} */
                            modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                            model: string;
                            prompt: string | null;
                            params: {
                                [key: string]: unknown;
                            };
                            reserved_credits: number;
                            charged_credits: number;
                            refunded_credits: number;
                            price_version: string | null;
                            cache_hit: boolean;
                            outputs: {
                                /** @description out_… */
                                id: string;
                                /** @enum {string} */
                                type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                                mime: string;
                                width: number | null;
                                height: number | null;
                                duration_s: string | null;
                                /**
                                 * Format: uri
                                 * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                                 */
                                url: string;
                                /** @enum {string} */
                                moderation_status: "pending" | "approved" | "flagged" | "blocked";
                            }[];
                            error: {
                                type: string;
                                code: string;
                                message: string;
                            } | null;
                            comparison_id: string | null;
                            livemode: boolean;
                            /** Format: date-time */
                            created_at: string;
                            completed_at: string | null;
                            prompt_expired_at: string | null;
                            files_expired_at: string | null;
                            message?: {
                                /** @constant */
                                role: "assistant";
                                content: string;
                            } | null;
                            usage?: {
                                input_tokens: number;
                                output_tokens: number;
                            } | null;
                        }[];
                        reserved_credits: number;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Insufficient credits or budget exceeded: insufficient_credits, budget_exceeded */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Idempotency key reused: idempotency_key_reused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getComparison: {
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
                        /** @description cmp_… */
                        id: string;
                        /** @constant */
                        object: "comparison";
                        /** @enum {string} */
                        status: "queued" | "running" | "completed";
                        modality: string;
                        prompt: string | null;
                        models: string[];
                        generations: {
                            /** @description gen_… */
                            id: string;
                            /** @constant */
                            object: "generation";
                            /** @enum {string} */
                            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                            /** @enum {string} */
                            modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                            model: string;
                            prompt: string | null;
                            params: {
                                [key: string]: unknown;
                            };
                            reserved_credits: number;
                            charged_credits: number;
                            refunded_credits: number;
                            price_version: string | null;
                            cache_hit: boolean;
                            outputs: {
                                /** @description out_… */
                                id: string;
                                /** @enum {string} */
                                type: "image" | "video" | "audio" | "thumbnail" | "mesh";
                                mime: string;
                                width: number | null;
                                height: number | null;
                                duration_s: string | null;
                                /**
                                 * Format: uri
                                 * @description Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.
                                 */
                                url: string;
                                /** @enum {string} */
                                moderation_status: "pending" | "approved" | "flagged" | "blocked";
                            }[];
                            error: {
                                type: string;
                                code: string;
                                message: string;
                            } | null;
                            comparison_id: string | null;
                            livemode: boolean;
                            /** Format: date-time */
                            created_at: string;
                            completed_at: string | null;
                            prompt_expired_at: string | null;
                            files_expired_at: string | null;
                            message?: {
                                /** @constant */
                                role: "assistant";
                                content: string;
                            } | null;
                            usage?: {
                                input_tokens: number;
                                output_tokens: number;
                            } | null;
                        }[];
                        reserved_credits: number;
                        /** Format: date-time */
                        created_at: string;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createQuote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Default: the model's modality.
                     * @enum {string}
                     */
                    modality?: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                    /** @description A model slug or mdl_ id from GET /v1/models. */
                    model: string;
                } & {
                    [key: string]: unknown;
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
                        /** @constant */
                        object: "quote";
                        /** @enum {string} */
                        modality: "image" | "video" | "voice" | "music" | "avatar" | "chat" | "3d" | "upscale";
                        /** @description The model's slug. */
                        model: string;
                        /** @description The credits this request would reserve if sent now with this key (0 with a test key). */
                        credits: number;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unavailable: provider_unavailable, service_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                group_by?: "day" | "model" | "api_key" | "modality" | "price_version";
                /** @description A second dimension: each row gets `breakdown`, its numbers split by it. */
                breakdown?: "day" | "model" | "api_key" | "modality" | "price_version";
                /** @description YYYY-MM-DD */
                start?: string;
                /** @description YYYY-MM-DD */
                end?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "usage";
                        group_by: string;
                        breakdown?: string;
                        start: string;
                        end: string;
                        data: {
                            key: string;
                            generations: number;
                            charged_credits: number;
                            refunded_credits: number;
                            /** @description charged_credits × 0.001 */
                            cost_usd: number;
                            breakdown?: {
                                key: string;
                                generations: number;
                                charged_credits: number;
                                refunded_credits: number;
                                /** @description charged_credits × 0.001 */
                                cost_usd: number;
                            }[];
                        }[];
                        totals: {
                            generations: number;
                            charged_credits: number;
                            refunded_credits: number;
                            /** @description charged_credits × 0.001 */
                            cost_usd: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRequests: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
                /** @description One request, by its id. */
                request_id?: string;
                /** @description A status (`429`) or a class (`4xx`). */
                status?: string;
                /** @description A path template (`/v1/images`), or method and template (`POST /v1/images`). */
                route?: string;
                /** @description A model id. */
                model?: string;
                /** @description An API key id. */
                key_id?: string;
                /** @description A generation id. */
                generation_id?: string;
                /** @description Requests at or after this time. */
                since?: string;
                /** @description Requests before this time. */
                until?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description The request id (X-Request-Id of the response). */
                            id: string;
                            /** @constant */
                            object: "request";
                            /** Format: date-time */
                            created_at: string;
                            /** @description Method and path template, e.g. `POST /v1/images`. */
                            route: string;
                            /** @description The HTTP status answered. */
                            status: number;
                            error_code: string | null;
                            key_id: string | null;
                            model: string | null;
                            generation_id: string | null;
                            /** @description Time from the request received to the response sent, in milliseconds. */
                            latency_ms: number;
                            cost_credits: number | null;
                            /** @description The request's and response's bodies were kept (data policy `capture: full`). */
                            payload_captured: boolean;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportRequests: {
        parameters: {
            query?: {
                /** @description jsonl (default) or csv. */
                format?: "jsonl" | "csv";
                /** @description One request, by its id. */
                request_id?: string;
                /** @description A status (`429`) or a class (`4xx`). */
                status?: string;
                /** @description A path template (`/v1/images`), or method and template (`POST /v1/images`). */
                route?: string;
                /** @description A model id. */
                model?: string;
                /** @description An API key id. */
                key_id?: string;
                /** @description A generation id. */
                generation_id?: string;
                /** @description Requests at or after this time. */
                since?: string;
                /** @description Requests before this time. */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/x-ndjson or text/csv */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description whk_… */
                            id: string;
                            /** @constant */
                            object: "webhook";
                            url: string;
                            events: string[];
                            enabled: boolean;
                            /** @enum {string} */
                            mode: "live" | "test";
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description https (http for test-mode webhooks). Redirects are not followed. */
                    url: string;
                    /** @description Event types, or `*` for every event. */
                    events: ("generation.completed" | "generation.failed" | "comparison.completed" | "usage.budget_threshold" | "usage.anomaly_detected" | "billing.auto_topup_failed" | "*")[];
                    enabled?: boolean;
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
                        /** @description whk_… */
                        id: string;
                        /** @constant */
                        object: "webhook";
                        url: string;
                        events: string[];
                        enabled: boolean;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** Format: date-time */
                        created_at: string;
                        /** @description whsec_…: the signing secret. Returned only here; store it now. */
                        secret: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhook: {
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
                        /** @description whk_… */
                        id: string;
                        /** @constant */
                        object: "webhook";
                        url: string;
                        events: string[];
                        enabled: boolean;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
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
                        id: string;
                        /** @constant */
                        object: "webhook";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description https (http for test-mode webhooks). Redirects are not followed. */
                    url?: string;
                    /** @description Event types, or `*` for every event. */
                    events?: ("generation.completed" | "generation.failed" | "comparison.completed" | "usage.budget_threshold" | "usage.anomaly_detected" | "billing.auto_topup_failed" | "*")[];
                    enabled?: boolean;
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
                        /** @description whk_… */
                        id: string;
                        /** @constant */
                        object: "webhook";
                        url: string;
                        events: string[];
                        enabled: boolean;
                        /** @enum {string} */
                        mode: "live" | "test";
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
                /** @description Only deliveries in this state. */
                status?: "pending" | "succeeded" | "failed" | "exhausted";
            };
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
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description whd_…; the X-Service-Delivery header, the same on every attempt. */
                            id: string;
                            /** @constant */
                            object: "webhook_delivery";
                            webhook_id: string;
                            /** @description evt_…; receivers deduplicate on it. */
                            event_id: string;
                            event_type: string;
                            /** @enum {string} */
                            status: "pending" | "succeeded" | "failed" | "exhausted";
                            /** @description Attempts made so far (at most 6). */
                            attempts: number;
                            next_attempt_at: string | null;
                            last_response_status: number | null;
                            last_error: string | null;
                            replay_of: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                delivery_id: string;
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
                        /** @description whd_…; the X-Service-Delivery header, the same on every attempt. */
                        id: string;
                        /** @constant */
                        object: "webhook_delivery";
                        webhook_id: string;
                        /** @description evt_…; receivers deduplicate on it. */
                        event_id: string;
                        event_type: string;
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "failed" | "exhausted";
                        /** @description Attempts made so far (at most 6). */
                        attempts: number;
                        next_attempt_at: string | null;
                        last_response_status: number | null;
                        last_error: string | null;
                        replay_of: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description Every attempt, oldest first. */
                        attempt_log: {
                            attempt: number;
                            /** Format: date-time */
                            started_at: string;
                            duration_ms: number;
                            response_status: number | null;
                            error: string | null;
                        }[];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replayWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                delivery_id: string;
            };
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": Record<string, never>;
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
                        /** @description whd_…; the X-Service-Delivery header, the same on every attempt. */
                        id: string;
                        /** @constant */
                        object: "webhook_delivery";
                        webhook_id: string;
                        /** @description evt_…; receivers deduplicate on it. */
                        event_id: string;
                        event_type: string;
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "failed" | "exhausted";
                        /** @description Attempts made so far (at most 6). */
                        attempts: number;
                        next_attempt_at: string | null;
                        last_response_status: number | null;
                        last_error: string | null;
                        replay_of: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": Record<string, never>;
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
                        /** @description whd_…; the X-Service-Delivery header, the same on every attempt. */
                        id: string;
                        /** @constant */
                        object: "webhook_delivery";
                        webhook_id: string;
                        /** @description evt_…; receivers deduplicate on it. */
                        event_id: string;
                        event_type: string;
                        /** @enum {string} */
                        status: "pending" | "succeeded" | "failed" | "exhausted";
                        /** @description Attempts made so far (at most 6). */
                        attempts: number;
                        next_attempt_at: string | null;
                        last_response_status: number | null;
                        last_error: string | null;
                        replay_of: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100. */
                limit?: number;
                /** @description The id of the last object of the previous page. */
                starting_after?: string;
                /** @description An action (`api_key.revoked`), or a prefix ending in `.*` (`api_key.*`). */
                action?: string;
                /** @description An actor's id (key_…, usr_…, an operator's name), or the member behind a key. */
                actor?: string;
                actor_type?: "member" | "api_key" | "operator" | "system";
                target_type?: string;
                target_id?: string;
                /** @description Entries at or after this time. */
                since?: string;
                /** @description Entries before this time. */
                until?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: {
                            /** @description aud_… */
                            id: string;
                            /** @constant */
                            object: "audit_event";
                            /** @description The entry's place in its organization's hash chain, from 1. */
                            seq: number;
                            organization_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            mode: ("live" | "test") | null;
                            /** AuditActor */
                            actor: {
                                /** @enum {string} */
                                type: "member" | "api_key" | "operator" | "system";
                                /** @description usr_… (member), key_… (API key), the operator's name, or the part of mmgen (system). */
                                id: string;
                                user_id: string | null;
                            };
                            client_address: string | null;
                            request_id: string | null;
                            /** @description A dotted name, e.g. `api_key.created`, `wallet.topped_up` (docs/contract-addenda.md lists them). */
                            action: string;
                            /** AuditTarget */
                            target: {
                                type: string;
                                id: string;
                            };
                            /** @description The target's values before the change (null: it did not exist). Secrets are never recorded. */
                            before: unknown;
                            /** @description The target's values after the change (null: it no longer exists). */
                            after: unknown;
                            /** @description SHA-256 (hex) of the previous entry of the chain; 64 zeros for the first. */
                            prev_hash: string;
                            /** @description SHA-256 (hex) of this entry's canonical serialization (RFC 8785), which includes prev_hash. */
                            hash: string;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportAuditEvents: {
        parameters: {
            query?: {
                /** @description An action (`api_key.revoked`), or a prefix ending in `.*` (`api_key.*`). */
                action?: string;
                /** @description An actor's id (key_…, usr_…, an operator's name), or the member behind a key. */
                actor?: string;
                actor_type?: "member" | "api_key" | "operator" | "system";
                target_type?: string;
                target_id?: string;
                /** @description Entries at or after this time. */
                since?: string;
                /** @description Entries before this time. */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/x-ndjson: one AuditEvent per line */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description At most 1048576 bytes (413 payload_too_large). A JSON body nests at most 32 levels, with at most 1000 members per object and 10000 items per array. Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body. */
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    content_type: "image/png" | "image/jpeg" | "image/webp" | "audio/mpeg" | "audio/wav";
                    /** @description The most bytes the PUT may send (up to 20 MiB). */
                    size_bytes: number;
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
                        /** @description upl_… */
                        id: string;
                        /** @constant */
                        object: "upload";
                        /** @enum {string} */
                        status: "pending" | "uploaded";
                        /** @enum {string} */
                        content_type: "image/png" | "image/jpeg" | "image/webp" | "audio/mpeg" | "audio/wav";
                        /** @description Declared while pending; the size received once uploaded. */
                        size_bytes: number;
                        width: number | null;
                        height: number | null;
                        duration_s: string | null;
                        livemode: boolean;
                        /**
                         * Format: date-time
                         * @description When upload_url stops working. An uploaded file is kept.
                         */
                        expires_at: string;
                        /** Format: date-time */
                        created_at: string;
                        uploaded_at: string | null;
                        file_expired_at: string | null;
                        /** @description PUT the file here within 15 minutes; no API key needed. Returned only at creation. */
                        upload_url: string;
                        /** @constant */
                        method: "PUT";
                        /** @description Headers the PUT must send. */
                        headers: {
                            "Content-Type": string;
                            /** @description Present when the PUT goes straight to S3, which accepts exactly this many bytes. */
                            "Content-Length"?: string;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUpload: {
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
                        /** @description upl_… */
                        id: string;
                        /** @constant */
                        object: "upload";
                        /** @enum {string} */
                        status: "pending" | "uploaded";
                        /** @enum {string} */
                        content_type: "image/png" | "image/jpeg" | "image/webp" | "audio/mpeg" | "audio/wav";
                        /** @description Declared while pending; the size received once uploaded. */
                        size_bytes: number;
                        width: number | null;
                        height: number | null;
                        duration_s: string | null;
                        livemode: boolean;
                        /**
                         * Format: date-time
                         * @description When upload_url stops working. An uploaded file is kept.
                         */
                        expires_at: string;
                        /** Format: date-time */
                        created_at: string;
                        uploaded_at: string | null;
                        file_expired_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: rate_limit_exceeded */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putUpload: {
        parameters: {
            query?: {
                /** @description Unix time after which the URL stops working. */
                expires?: string;
                /** @description HMAC-SHA-256 over the path and expiry. */
                signature?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/png": string;
                "image/jpeg": string;
                "image/webp": string;
                "audio/mpeg": string;
                "audio/wav": string;
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
                        /** @description upl_… */
                        id: string;
                        /** @constant */
                        object: "upload";
                        /** @enum {string} */
                        status: "pending" | "uploaded";
                        /** @enum {string} */
                        content_type: "image/png" | "image/jpeg" | "image/webp" | "audio/mpeg" | "audio/wav";
                        /** @description Declared while pending; the size received once uploaded. */
                        size_bytes: number;
                        width: number | null;
                        height: number | null;
                        duration_s: string | null;
                        livemode: boolean;
                        /**
                         * Format: date-time
                         * @description When upload_url stops working. An uploaded file is kept.
                         */
                        expires_at: string;
                        /** Format: date-time */
                        created_at: string;
                        uploaded_at: string | null;
                        file_expired_at: string | null;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Payload too large: payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported media type: unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getFile: {
        parameters: {
            query?: {
                /** @description Unix time after which the URL stops working. */
                expires?: string;
                /** @description HMAC-SHA-256 over the path and expiry. */
                signature?: string;
            };
            header?: never;
            path: {
                /** @description out_….ext */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, with its media type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Forbidden: ip_not_allowed, insufficient_role, organization_paused, plan_limit_exceeded, feature_not_available, signature_invalid, model_not_allowed, csrf_token_invalid, session_required, live_mode_required, sso_required, sign_up_closed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found: resource_not_found, route_not_found, model_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: generation_not_cancelable, generation_not_retryable, generation_canceled, idempotency_key_in_use, upload_already_completed, moderation_pending, last_owner, email_taken, passkey_required */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Gone: model_unavailable, invitation_invalid, sign_up_invalid, file_expired */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blocked by moderation: content_blocked */
            451: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    healthz: {
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
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readyz: {
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
                        /** @enum {string} */
                        status: "ok" | "degraded" | "unavailable" | "draining";
                        /** @description database, blob_store, redis (when configured), workers, queue: "ok", or what is wrong. */
                        checks: {
                            [key: string]: string;
                        };
                        queue: {
                            /** @description Jobs due and waiting for a worker. */
                            depth: number;
                            /** @description Jobs held by a worker or a synchronous request. */
                            running: number;
                            /** @description Seconds the longest-waiting job has waited. */
                            oldest_age_s: number;
                            /** @description Worker processes that beat within the last 30 seconds. */
                            live_workers: number;
                        };
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Success */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "degraded" | "unavailable" | "draining";
                        /** @description database, blob_store, redis (when configured), workers, queue: "ok", or what is wrong. */
                        checks: {
                            [key: string]: string;
                        };
                        queue: {
                            /** @description Jobs due and waiting for a worker. */
                            depth: number;
                            /** @description Jobs held by a worker or a synchronous request. */
                            running: number;
                            /** @description Seconds the longest-waiting job has waited. */
                            oldest_age_s: number;
                            /** @description Worker processes that beat within the last 30 seconds. */
                            live_workers: number;
                        };
                    };
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/plain; version=0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Authentication failed: missing_authorization, invalid_authorization, invalid_api_key, invalid_credentials, session_expired, second_factor_required */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApi: {
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
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, model_modality_mismatch, content_policy_violation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error: internal_error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
