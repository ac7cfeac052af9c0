/*
 * json_txn.c: the Transaction resource as JSON, the one definition of its
 * shape for every answer and every webhook event that carries one, and the
 * facts of a review case that the view and the review handlers share.
 * Pure: a struct txn in, JSON out.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "xborder/jtext.h"
#include "xborder/json_txn.h"
#include "xborder/txn.h"

/* The counterparty fields a counterparty_info_incomplete case asks for. */
const char *const txn_review_required_fields[] = { "senderFullLegalName", "senderCountryCode",
	"senderDateOfBirthOrRegistrationId", "purposeOfPayment", NULL };

int
txn_review_reject_only(const char *scenario)
{
	return strcmp(scenario, "counterparty_info_incomplete") != 0;
}

void
json_review_fields(json_object *o, const struct txn *t)
{
	json_object *hints;
	int blocked;

	if (t->review_scenario[0] == '\0' || strcmp(t->status, "PENDING") != 0)
		return;
	blocked = txn_review_reject_only(t->review_scenario);
	json_put(o, "reviewReason", json_object_new_string(t->review_scenario));
	json_put(o, "decisionMode",
	    json_object_new_string(blocked ? "reject_only" : "manual_review_required"));
	json_put(o, "recommendedAction",
	    json_object_new_string(blocked ? "reject" : "manual_review"));
	hints = json_object_new_object();
	json_put(hints, "approveAllowed", json_object_new_boolean(!blocked));
	json_put(hints, "rejectAllowed", json_object_new_boolean(1));
	json_put(hints, "manualReviewRequired", json_object_new_boolean(!blocked));
	if (blocked)
		json_put(hints, "approveBlockedReason",
		    json_object_new_string("reject_only"));
	json_put(o, "actionAvailabilityHints", hints);
	if (strcmp(t->review_scenario, "sanctions_hit") == 0) {
		json_object *m = t->review_detail ? json_tokener_parse(t->review_detail) : NULL;

		json_put(o, "sanctionsMatchSummary",
		    m != NULL ? m : json_object_new_object());
	} else if (strcmp(t->review_scenario, "sender_kyc_not_approved") == 0) {
		json_object *c = json_object_new_object();

		json_put(c, "kycStatus", json_object_new_string("REJECTED"));
		json_put(c, "screeningResult",
		    json_object_new_string("KYC_NOT_APPROVED"));
		json_put(o, "senderComplianceSummary", c);
	} else {
		json_object *f = json_object_new_array();

		for (size_t i = 0; txn_review_required_fields[i] != NULL; i++)
			json_object_array_add(f, json_object_new_string(txn_review_required_fields[i]));
		json_put(o, "missingRequiredFields", f);
		json_put(o, "thresholdPolicyNote", json_object_new_string(
		    "Incoming payments whose sender information is incomplete are held for"
		    " manual review; approval needs every missing field."));
	}
}

/* An outgoing transaction's source, and every transaction's destination. */
static void
txn_ends(struct jtext *j, const struct txn *t, int out)
{
	if (out) {
		jt_key(j, "source");
		jt_open(j, '{');
		jt_key(j, "accountId");
		jt_prefixed_or_null(j, "InternalAccount", t->internal_account_id);
		jt_key(j, "sourceType");
		jt_str(j, "INTERNAL_ACCOUNT");
		jt_close(j, '}');
	}
	jt_key(j, "destination");
	jt_open(j, '{');
	jt_key(j, "accountId");
	if (strcmp(t->destination_type, "EXTERNAL_ACCOUNT") == 0)
		jt_prefixed_or_null(j, "ExternalAccount", t->destination_ref);
	else
		jt_str_or_null(j, t->destination_ref);
	jt_key(j, "destinationType");
	jt_str(j, t->destination_type);
	jt_close(j, '}');
}

/*
 * The Transaction resource, written as text: the one definition of its
 * shape, for every answer and event that carries one.  Review fields (an
 * incoming payment held in the review lane) come from json_review_fields().
 */
static void
txn_text(struct jtext *j, const struct txn *t)
{
	int out = strcmp(t->type, "OUTGOING") == 0;
	int settled = strcmp(t->status, "COMPLETED") == 0 || strcmp(t->status, "REFUNDED") == 0;

	jt_open(j, '{');
	jt_key(j, "transactionId");
	jt_prefixed(j, "Transaction", t->id);
	jt_key(j, "quoteId");
	jt_prefixed_or_null(j, "Quote", t->quote_id);
	jt_key(j, "type");
	jt_str(j, t->type);
	jt_key(j, "status");
	jt_str(j, t->status);
	jt_key(j, "customerId");
	jt_prefixed_or_null(j, "Customer", t->customer_id);
	jt_key(j, "platformCustomerId");
	jt_str_or_null(j, t->platform_customer_id);
	jt_key(j, "createdAt");
	jt_str(j, t->created_at);
	jt_key(j, "updatedAt");
	jt_str(j, t->updated_at);
	jt_key(j, "settledAt");
	jt_str_or_null(j, settled && t->settled_at[0] ? t->settled_at : NULL);
	if (t->exchange_rate != NULL) {
		jt_key(j, "exchangeRate");
		jt_str(j, t->exchange_rate);
	}
	if (t->fee_currency[0]) {
		jt_key(j, "fees");
		jt_money(j, t->fee_currency, t->fee_amount);
	}
	txn_ends(j, t, out);
	jt_key(j, out ? "sentAmount" : "receivedAmount");
	jt_money(j, t->currency, t->amount);
	if (!out) {
		json_object *r = json_object_new_object();

		json_review_fields(r, t);
		if (json_object_object_length(r) > 0)
			jt_members(j, json_object_to_json_string_ext(r,
			    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(r);
	}
	jt_close(j, '}');
}

json_object *
json_transaction(const struct txn *t)
{
	struct jtext j;

	jt_init(&j);
	txn_text(&j, t);
	return json_text(jt_take(&j, NULL));
}

