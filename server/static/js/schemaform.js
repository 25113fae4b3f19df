// Form controls generated from a JSON Schema, for the agent's questions:
// boolean → switch, enum → radio group (or select when long), string → text input (pattern,
// minLength, maxLength checked), number → number input, array of enum → checkboxes,
// object → fieldset of its properties, anything else → a JSON text area.
//
// `field(schema, label)` returns {node, read()}; read() returns the value or throws
// ValidationError (after marking the offending control).

import { el, uid } from './util.js';

export class ValidationError extends Error {
  constructor(message, control) {
    super(message);
    this.control = control;
  }
}

function invalid(control, message) {
  if (control && control.setCustomValidity) {
    control.setCustomValidity(message);
    control.setAttribute('aria-invalid', 'true');
    const clear = () => {
      control.setCustomValidity('');
      control.removeAttribute('aria-invalid');
      control.removeEventListener('input', clear);
      control.removeEventListener('change', clear);
    };
    control.addEventListener('input', clear);
    control.addEventListener('change', clear);
  }
  return new ValidationError(message, control);
}

/**
 * @param {object} schema JSON Schema of the answer
 * @param {string} label visible label (the question, or a property name)
 * @param {{required?: boolean}} opts
 */
export function field(schema, label, opts = {}) {
  const s = schema && typeof schema === 'object' ? schema : {};
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  const description = s.description ? el('small', { class: 'hint' }, s.description) : null;
  if (Array.isArray(s.enum) && type !== 'array') return enumField(s, label, opts, description);
  switch (type) {
    case 'boolean':
      return booleanField(s, label, description);
    case 'string':
      return stringField(s, label, opts, description);
    case 'number':
    case 'integer':
      return numberField(s, label, opts, description, type === 'integer');
    case 'array':
      if (s.items && Array.isArray(s.items.enum)) return checkboxField(s, label, description);
      return listField(s, label, opts, description);
    case 'object':
      return objectField(s, label, description);
    default:
      return jsonField(s, label, description);
  }
}

function booleanField(s, label, description) {
  const id = uid('q-');
  const input = el('input', {
    type: 'checkbox',
    role: 'switch',
    id,
    class: 'switch',
    'data-testid': 'q-boolean',
  });
  input.checked = s.default === true;
  const node = el('div', { class: 'q-field q-boolean' }, input, el('label', { for: id }, label), description);
  return { node, read: () => input.checked };
}

function enumField(s, label, opts, description) {
  const values = s.enum;
  if (values.length > 5) {
    const id = uid('q-');
    const select = el('select', { id, 'data-testid': 'q-select' });
    if (!opts.required && s.default === undefined) select.append(el('option', { value: '' }, '—'));
    values.forEach((v, i) => {
      const o = el('option', { value: String(i) }, String(v));
      if (v === s.default) o.selected = true;
      select.append(o);
    });
    const node = el('div', { class: 'q-field' }, el('label', { for: id }, label), select, description);
    return {
      node,
      read: () => {
        if (select.value === '') {
          if (opts.required) throw invalid(select, 'Choose one');
          return undefined;
        }
        return values[Number(select.value)];
      },
    };
  }
  const name = uid('q-');
  const fs = el('fieldset', { class: 'q-field q-radio', 'data-testid': 'q-radio' }, el('legend', {}, label));
  const inputs = values.map((v) => {
    const input = el('input', { type: 'radio', name, value: String(v) });
    if (v === s.default) input.checked = true;
    fs.append(el('label', { class: 'q-option' }, input, ' ', String(v)));
    return input;
  });
  if (description) fs.append(description);
  return {
    node: fs,
    read: () => {
      const i = inputs.findIndex((x) => x.checked);
      if (i < 0) {
        if (opts.required !== false) throw invalid(inputs[0], 'Choose one');
        return undefined;
      }
      return values[i];
    },
  };
}

function stringField(s, label, opts, description) {
  const id = uid('q-');
  const long = (s.maxLength || 0) > 200 || s.format === 'markdown';
  const input = el(long ? 'textarea' : 'input', {
    id,
    type: long ? null : 'text',
    'data-testid': 'q-text',
    minlength: s.minLength,
    maxlength: s.maxLength,
    placeholder: s.examples && s.examples[0] ? String(s.examples[0]) : null,
    'data-pattern': s.pattern,
    autocomplete: 'off',
  });
  if (typeof s.default === 'string') input.value = s.default;
  const node = el('div', { class: 'q-field' }, el('label', { for: id }, label), input, description);
  let re = null;
  if (typeof s.pattern === 'string') {
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      re = null;
    }
  }
  return {
    node,
    read: () => {
      const v = input.value;
      if (!v && opts.required === false) return undefined;
      if (s.minLength != null && v.length < s.minLength) {
        throw invalid(input, `At least ${s.minLength} characters`);
      }
      if (s.maxLength != null && v.length > s.maxLength) {
        throw invalid(input, `At most ${s.maxLength} characters`);
      }
      if (re && !re.test(v)) {
        throw invalid(input, `Must match ${s.pattern}`);
      }
      return v;
    },
  };
}

function numberField(s, label, opts, description, integer) {
  const id = uid('q-');
  const input = el('input', {
    id,
    type: 'number',
    'data-testid': 'q-number',
    min: s.minimum,
    max: s.maximum,
    step: integer ? 1 : 'any',
  });
  if (typeof s.default === 'number') input.value = String(s.default);
  const node = el('div', { class: 'q-field' }, el('label', { for: id }, label), input, description);
  return {
    node,
    read: () => {
      if (input.value === '') {
        if (opts.required === false) return undefined;
        throw invalid(input, 'Enter a number');
      }
      const v = Number(input.value);
      if (!Number.isFinite(v) || (integer && !Number.isInteger(v))) throw invalid(input, 'Enter a valid number');
      if (s.minimum != null && v < s.minimum) throw invalid(input, `At least ${s.minimum}`);
      if (s.maximum != null && v > s.maximum) throw invalid(input, `At most ${s.maximum}`);
      return v;
    },
  };
}

function checkboxField(s, label, description) {
  const values = s.items.enum;
  const fs = el('fieldset', { class: 'q-field q-checks', 'data-testid': 'q-checkboxes' }, el('legend', {}, label));
  const defaults = Array.isArray(s.default) ? s.default : [];
  const inputs = values.map((v) => {
    const input = el('input', { type: 'checkbox', value: String(v) });
    input.checked = defaults.includes(v);
    fs.append(el('label', { class: 'q-option' }, input, ' ', String(v)));
    return input;
  });
  if (description) fs.append(description);
  return {
    node: fs,
    read: () => {
      const out = values.filter((_, i) => inputs[i].checked);
      if (s.minItems != null && out.length < s.minItems) {
        throw invalid(inputs[0], `Choose at least ${s.minItems}`);
      }
      if (s.maxItems != null && out.length > s.maxItems) {
        throw invalid(inputs[0], `Choose at most ${s.maxItems}`);
      }
      return out;
    },
  };
}

function listField(s, label, opts, description) {
  const id = uid('q-');
  const area = el('textarea', { id, rows: 3, 'data-testid': 'q-list', placeholder: 'One item per line' });
  const node = el('div', { class: 'q-field' }, el('label', { for: id }, label), area, description);
  const itemType = s.items && s.items.type;
  return {
    node,
    read: () => {
      const items = area.value
        .split('\n')
        .map((x) => x.trim())
        .filter(Boolean)
        .map((x) => (itemType === 'number' || itemType === 'integer' ? Number(x) : x));
      if (s.minItems != null && items.length < s.minItems) {
        throw invalid(area, `At least ${s.minItems} items`);
      }
      return items;
    },
  };
}

function objectField(s, label, description) {
  const fs = el('fieldset', { class: 'q-field q-object', 'data-testid': 'q-object' }, el('legend', {}, label));
  if (description) fs.append(description);
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const props = s.properties && typeof s.properties === 'object' ? s.properties : {};
  const fields = Object.entries(props).map(([name, sub]) => {
    const title = (sub && sub.title) || name;
    const f = field(sub, required.has(name) ? `${title} *` : title, { required: required.has(name) });
    f.node.dataset.prop = name;
    fs.append(f.node);
    return [name, f];
  });
  return {
    node: fs,
    read: () => {
      const out = {};
      for (const [name, f] of fields) {
        const v = f.read();
        if (v !== undefined && v !== '') out[name] = v;
        else if (required.has(name)) throw invalid(f.node.querySelector('input,select,textarea'), `${name} is required`);
      }
      return out;
    },
  };
}

function jsonField(s, label, description) {
  const id = uid('q-');
  const area = el('textarea', { id, rows: 3, 'data-testid': 'q-json', placeholder: 'JSON value' });
  if (s.default !== undefined) area.value = JSON.stringify(s.default);
  const node = el('div', { class: 'q-field' }, el('label', { for: id }, label), area, description);
  return {
    node,
    read: () => {
      const t = area.value.trim();
      if (!t) return null;
      try {
        return JSON.parse(t);
      } catch {
        // Plain text is a fine answer where the schema says nothing.
        return t;
      }
    },
  };
}
