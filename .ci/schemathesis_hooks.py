"""Schemathesis hooks for `.ci/schemathesis`: schema-valid acceptance, with the rules no JSON
Schema can state listed by name as expected refusals.

`positive_data_acceptance_named` runs schemathesis' own `positive_data_acceptance` and lets a
refusal of schema-valid data pass only when it is a 400 or 409 whose every violation is one of
the rules below (matched on the error body's `message`, or, for a config resource, its
`configKey`). Anything else, a refusal the document should have stated, still fails the run.
Why each rule cannot be in the document: docs/interface-decisions.md ("Schemathesis").
"""

import json
import os
import re

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

# Rule name -> pattern of the violation's message.
EXPECTED_REFUSALS = {
    # References: an id must name something that exists (a schema sees only its shape).
    "an id names something that exists": r"(^|: )no [A-Za-z -]+? ([0-9a-f]{8}-|has the id )",
    "a slug names something that exists": r"\.slug: no (customer flow|metric definition) ",
    "a cursor this service issued": r"^cursor is not one this service issued$",
    # Rules between members or parameters.
    "after and cursor agree": r"^after is another name of cursor",
    "planId and simulationRunPlanId agree": r"^planId is the older name of simulationRunPlanId",
    "metricId and slug agree": r"^metricId is an alias of slug",
    "scaleMax greater than scaleMin": r"^scaleMax \(.*\) must be greater than scaleMin",
    "type and outputType agree": r"^outputType is the hosted name of type",
    "direction and callDirection agree": r"^direction is the older name of callDirection",
    "a metric's shape fits its type": r"(llmPrompt|formula|sources) is required$|^(scale|classification|maxClassifications|boolean)",
    "a flow step's members fit its type": r"step (does not take|needs)|graph",
    "an outbound dial has its definition": r"needs an HTTP request definition",
    # State: what is stored decides.
    "system and voicemail flows are the service's": r"is a system flow|voicemail flows are service-managed",
    "an ended job is not cancelled": r"has already ended",
    "system personas are the service's": r"^system personas cannot be deleted$",
    "names are unique": r"^another [a-z ]+ is named|exists already|is taken",
    "a run plan the local service can run": r"the local service runs no sweeps",
    # Text: integers written as 11.0 are integers to JSON Schema, not to the service; NUL
    # cannot be stored (PostgreSQL); a variant name is a path segment.
    "integers without a fraction": r"invalid type: floating point `-?[0-9.e+-]+`, expected [ui](8|16|32|64|size)",
    "text without NUL": r"must not contain a NUL character",
    "a variant name fits a path": r"may hold letters, digits, spaces, - _ and \. only",
    "an id in text is a UUID": r"UUID parsing failed",
    "run variables are a map or a list of per-flow maps": r"untagged enum RunVariables",
    "a schedule's date-times are on the calendar": r"^(at|endDate) .* must be a date",
    "a transcript entry ends after it starts": r"endOffsetMs must not be before startOffsetMs",
    "a stored flow's type decides its members": (
        r"scripted flows only; this flow is IMPROV|an improv flow's happy path keeps a persona"
        r"|an improv flow keeps at least one agent|improv flows only; a SCRIPTED variant"
    ),
    "an endpoint keeps its HTTP request definition": r"^outboundDialHttpRequestDefinitionId cannot be changed$",
    "a header mask stands for the value kept": r"stands for a kept value|is not the mask of the value kept",
    "a knowledge file is UTF-8 text": r"^the file must be UTF-8 text$",
}

# A config resource is a free object in the document (its kind decides its members); every
# violation inside one names it by `configKey`.
CONFIG_RESOURCE = "a config resource follows its kind's rules"

STATUSES = (400, 409)


def _violations(body):
    details = body.get("details") or {}
    listed = details.get("violations") if isinstance(details, dict) else None
    return listed if listed else [body]


def expected_refusal(violation):
    """The name of the rule a violation is, or None."""
    if "configKey" in violation:
        return CONFIG_RESOURCE
    message = str(violation.get("message", ""))
    for name, pattern in EXPECTED_REFUSALS.items():
        if re.search(pattern, message):
            return name
    return None


@schemathesis.check
def positive_data_acceptance_named(ctx, response, case):
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if response.status_code not in STATUSES:
            raise
        try:
            body = json.loads(response.content)
        except ValueError:
            raise
        unnamed = [v for v in _violations(body) if not expected_refusal(v)]
        if not unnamed:
            return None
        report = os.environ.get("SCHEMATHESIS_UNSTATED_REPORT")
        if not report:
            raise
        # Report mode: a refusal of a rule neither listed nor stated is written down for the
        # run's summary (the document's debt), not failed, until the document states it.
        with open(report, "a", encoding="utf-8") as out:
            for violation in unnamed:
                out.write(f"{case.operation.label}\t{violation.get('message', '')}\n")
        return None
