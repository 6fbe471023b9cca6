//! Writes from the catalog: create a persona, delete one (after asking), and change an agent
//! endpoint's environment and dial type. Each is a form or a confirm dialog over the list.

use crate::api::model::{
    AgentEndpoint, AgentEndpointUpdate, Gender, Language, OutboundDialType, Persona, PersonaFields,
};
use crate::api::validate::{Validate, Violation};
use crate::console::message::Write;
use crate::console::out::Out;
use crate::console::widgets::confirm::Confirm;
use crate::console::widgets::form::{Field, Form};
use crate::console::widgets::modal::Modal;

/// The new persona's form: a name (required) and a few traits.
pub fn create_persona(modal: &mut Modal) {
    let fields = vec![
        Field::text("name", "name", "", "required · at least 1 character"),
        Field::text("description", "description", "", "optional · free text"),
        Field::choice::<Language>("language", "language", None, true),
        Field::choice::<Gender>("gender", "gender", None, true),
    ];
    let check = |form: &Form| persona(form).validate();
    modal.form(Form::new("new persona", fields, check), |form| Write::CreatePersona(Box::new(persona(form))));
}

fn persona(form: &Form) -> PersonaFields {
    PersonaFields {
        name: form.opt("name"),
        description: form.opt("description"),
        language: form.opt("language").map(|v| Language::from(v.as_str())),
        gender: form.opt("gender").map(|v| Gender::from(v.as_str())),
        ..Default::default()
    }
}

/// Asks before deleting `persona`; the service's own personas are refused with the reason.
pub fn delete_persona(persona: &Persona, out: &mut Out) {
    if persona.is_system == Some(true) {
        out.error(format!("{} is a system persona: the service provides it and it cannot be deleted", persona.label()));
        return;
    }
    let question = format!("Delete the persona {}? This cannot be undone.", persona.label());
    out.modal.confirm(Confirm::new("delete persona", question, Write::DeletePersona(persona.id)));
}

/// The endpoint's environment and outbound dial type.
pub fn edit_endpoint(modal: &mut Modal, endpoint: &AgentEndpoint) {
    let fields = vec![
        Field::text(
            "environment",
            "environment",
            endpoint.environment.as_deref().unwrap_or(""),
            "at least 1 character · empty leaves it as is",
        ),
        Field::choice("outboundDialType", "dial type", endpoint.outbound_dial_type.as_ref(), false),
    ];
    let title = format!("edit endpoint {}", endpoint.value.as_deref().unwrap_or("(no value)"));
    let current = endpoint.clone();
    let check = move |form: &Form| -> Vec<Violation> {
        let update = endpoint_update(form);
        let mut violations = update.validate();
        violations.extend(update.validate_against(&current));
        violations
    };
    let id = endpoint.id;
    modal.form(Form::new(title, fields, check), move |form| Write::UpdateEndpoint(id, endpoint_update(form)));
}

fn endpoint_update(form: &Form) -> AgentEndpointUpdate {
    AgentEndpointUpdate {
        environment: form.opt("environment"),
        outbound_dial_type: form.opt("outboundDialType").map(|v| OutboundDialType::from(v.as_str())),
        ..Default::default()
    }
}
