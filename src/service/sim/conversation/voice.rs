//! The persona's voice as the simulated caller speaks it: pace, timing, disfluencies, mood,
//! memory and interruptions.

use crate::api::model::*;

/// The persona's voice: pace, timing, disfluencies, mood and memory.
pub(super) struct Voice {
    pub(super) words_per_minute: f64,
    pub(super) response_ms: i64,
    pub(super) disfluent: bool,
    pub(super) opener: Option<&'static str>,
    pub(super) forgets: f64,
    /// The share of the agent's longer turns the caller starts talking over.
    pub(super) cuts_in: f64,
}

impl Voice {
    pub(super) fn of(persona: Option<&Persona>) -> Voice {
        let Some(p) = persona.map(|p| &p.fields) else {
            return Voice {
                words_per_minute: 150.0,
                response_ms: 700,
                disfluent: false,
                opener: None,
                forgets: 0.0,
                cuts_in: 0.0,
            };
        };
        Voice {
            words_per_minute: match p.speech_pace {
                Some(SpeechPace::SuperSlow) => 95.0,
                Some(SpeechPace::Slow) => 115.0,
                Some(SpeechPace::Fast) => 190.0,
                Some(SpeechPace::SuperFast) => 230.0,
                _ => 150.0,
            },
            response_ms: match p.response_timing {
                Some(ResponseTiming::Quick | ResponseTiming::BargeIn) => 250,
                Some(ResponseTiming::Relaxed) => 1600,
                _ => 700,
            },
            disfluent: p.has_disfluencies == Some(true),
            opener: match p.base_emotion {
                Some(BaseEmotion::Frustrated | BaseEmotion::Angry) => Some("Look, "),
                Some(BaseEmotion::Anxious) => Some("Sorry, I'm a bit flustered. "),
                Some(BaseEmotion::Cheerful) => Some("Hi there! "),
                Some(BaseEmotion::Confused) => Some("Sorry, I'm a little confused. "),
                Some(BaseEmotion::Skeptical) => Some("Hm. "),
                Some(BaseEmotion::Rushed) => Some("I'm in a hurry, so quickly: "),
                Some(BaseEmotion::Distracted) => Some("Sorry, one second... okay. "),
                Some(BaseEmotion::Sad) => Some("Hi... "),
                _ => None,
            },
            forgets: match p.memory_reliability {
                Some(MemoryReliability::Low) => 0.3,
                _ => 0.0,
            },
            cuts_in: match p.interruption {
                Some(Interruption::Occasional) => 0.3,
                Some(Interruption::Heavy) => 0.7,
                _ => 0.0,
            },
        }
    }

    pub(super) fn speaking_ms(&self, text: &str) -> i64 {
        let words = text.split_whitespace().count().max(1) as f64;
        (words / self.words_per_minute * 60_000.0).round() as i64
    }
}
