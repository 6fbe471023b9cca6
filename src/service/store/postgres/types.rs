//! The store's values on PostgreSQL's wire: an argument written as whatever type the statement
//! asks for there (an integer as `int4` or `int8`, text as `text` or `json`), and a result's
//! value read from whatever type it came as.

use std::error::Error;

use bytes::{BufMut, BytesMut};
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use super::super::db::{Arg, Cell};

type Failure = Box<dyn Error + Sync + Send>;

impl ToSql for Arg<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Failure> {
        match *self {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(n) => match *ty {
                Type::INT8 => n.to_sql(ty, out),
                Type::INT4 => i32::try_from(n)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(n)?.to_sql(ty, out),
                Type::FLOAT8 => (n as f64).to_sql(ty, out),
                Type::BOOL => (n != 0).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => n.to_string().as_str().to_sql(&Type::TEXT, out),
                _ => Err(format!("an integer given where the statement takes {ty}").into()),
            },
            Arg::Real(x) => match *ty {
                Type::FLOAT8 => x.to_sql(ty, out),
                Type::FLOAT4 => (x as f32).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => x.to_string().as_str().to_sql(&Type::TEXT, out),
                _ => Err(format!("a number given where the statement takes {ty}").into()),
            },
            Arg::Text(text) => match *ty {
                // `json` is sent as its text; `jsonb` as a version byte and its text.
                Type::JSON => {
                    out.put_slice(text.as_bytes());
                    Ok(IsNull::No)
                }
                Type::JSONB => {
                    out.put_u8(1);
                    out.put_slice(text.as_bytes());
                    Ok(IsNull::No)
                }
                Type::INT8 => text.parse::<i64>()?.to_sql(ty, out),
                _ => text.to_sql(&Type::TEXT, out),
            },
            Arg::Texts(texts) => match *ty {
                Type::TEXT_ARRAY => texts.to_sql(ty, out),
                _ => Err(format!("texts given where the statement takes {ty}").into()),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Cell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Cell, Failure> {
        Ok(match *ty {
            Type::INT8 => Cell::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Cell::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Cell::Int(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Cell::Int(bool::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Cell::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Cell::Real(f32::from_sql(ty, raw)?.into()),
            Type::JSONB => Cell::Text(std::str::from_utf8(raw.get(1..).unwrap_or_default())?.to_owned()),
            Type::NUMERIC => {
                return Err("a numeric result: cast it to bigint or double precision in the statement".into());
            }
            _ => Cell::Text(std::str::from_utf8(raw)?.to_owned()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Cell, Failure> {
        Ok(Cell::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}
