"""The words anonset looks for in column names, and how a name is cut into words.

:data:`IDENTIFIER_NAMES` and :data:`IDENTIFIER_WORDS` mark a direct
identifier, :data:`SENSITIVE_WORDS` a sensitive attribute and
:data:`QUASI_WORDS` a classic quasi-identifier (:mod:`anonset.starter.roles`
applies them); :data:`CODE_WORDS` make a column of digits a code
(:mod:`anonset.starter.column_types`).
"""

from __future__ import annotations

import re

__all__ = ["CODE_WORDS", "IDENTIFIER_NAMES", "IDENTIFIER_WORDS", "QUASI_WORDS", "SENSITIVE_WORDS", "name_words",
           "squashed_name"]

#: Column names (lower case, letters and digits only) that are direct identifiers.
IDENTIFIER_NAMES = frozenset({
    "name", "fullname", "firstname", "lastname", "surname", "forename", "givenname", "familyname", "middlename",
    "patientname", "email", "emailaddress", "mail", "phone", "phonenumber", "telephone", "mobile", "cellphone",
    "fax", "ssn", "socialsecuritynumber", "passport", "passportnumber", "address", "streetaddress", "street",
    "iban", "ipaddress", "username", "login",
})
#: Words of a column name that make it a direct identifier (``patient_id``, ``PatientID``, ``record-uuid``).
IDENTIFIER_WORDS = frozenset({"id", "uuid", "guid", "ssn", "mrn", "email", "phone", "iban", "passport"})
#: Words of a column name that make it a sensitive attribute.
SENSITIVE_WORDS = frozenset({
    "diagnosis", "diagnoses", "disease", "diseases", "illness", "medication", "medications", "treatment",
    "income", "salary", "salaries", "wage", "wages", "earnings", "religion", "hiv",
})
#: Words of a column name that mark a classic quasi-identifier (no "review" note needed).
QUASI_WORDS = frozenset({
    "age", "sex", "gender", "zip", "zipcode", "postcode", "postal", "plz", "birth", "birthdate", "dob", "born",
    "race", "ethnicity", "marital", "nationality", "country", "city", "region", "county", "state", "education",
    "occupation", "job", "profession",
})
#: Words of a column name that make a column of digits a code.
CODE_WORDS = frozenset({"zip", "zipcode", "postcode", "postal", "plz", "code", "icd", "fips", "area", "district"})


def name_words(name: str) -> set[str]:
    """The words of a column name, lower case: ``PatientID`` and ``patient_id`` give {patient, id}."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def squashed_name(name: str) -> str:
    """A column name in lower case, letters and digits only, as :data:`IDENTIFIER_NAMES` holds names."""
    return re.sub(r"[^a-z0-9]", "", name.lower())
