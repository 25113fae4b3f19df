// The page's shell: on narrow screens the top bar's people, Share and Chat fold into a menu
// (the layout itself is CSS: docs/CLIENT.md, "Phones and tablets").

const $ = (id) => document.getElementById(id);

export function wireShell() {
  const toggle = $('menu-toggle');
  const menu = $('topbar-menu');
  const isOpen = () => document.body.classList.contains('menu-open');
  const set = (open) => {
    document.body.classList.toggle('menu-open', open);
    toggle.setAttribute('aria-expanded', String(open));
  };
  toggle.addEventListener('click', () => set(!isOpen()));
  // Choosing an item, or pressing anywhere else, closes it; a button that opens a list inside
  // the menu (Export) keeps it open.
  menu.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (b && b.getAttribute('aria-haspopup') !== 'menu') set(false);
  });
  document.addEventListener('pointerdown', (e) => {
    if (isOpen() && !e.target.closest('#topbar-menu, #menu-toggle')) set(false);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && isOpen()) {
      set(false);
      toggle.focus();
    }
  });
}
