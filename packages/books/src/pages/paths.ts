/**
 * Where the pages live. The contract owns `/books`, `/reservations` and `/me` (the API answers JSON
 * there, whatever Accept says); every page but the home page is under `/web/`, which the API never uses.
 */
export const PATHS = {
  home: '/',
  apiDocs: '/swagger-ui.html',
  myReservations: '/web/reservations',
  adminReservations: '/web/admin/reservations',
  overdueLoans: '/web/admin/overdue',
  audit: '/web/admin/audit',
  failedNotices: '/web/admin/notices',
  resendNotice: (id: string) => `/web/admin/notices/${id}/resend`,
  account: '/web/account',
  accountNotices: '/web/account/notices',
  accountCalendar: '/web/account/calendar',
  mailbox: '/web/dev/mailbox',
  newBook: '/web/admin/books/new',
  book: (id: string) => `/web/books/${id}`,
  reserve: (id: string) => `/web/books/${id}/reserve`,
  editBook: (id: string) => `/web/admin/books/${id}/edit`,
  updateBook: (id: string) => `/web/admin/books/${id}`,
  deleteBook: (id: string) => `/web/admin/books/${id}/delete`,
  createBook: '/web/admin/books',
  transition: (bookId: string, reservationId: string, transition: string) =>
    `/web/books/${bookId}/reservations/${reservationId}/${transition}`,
} as const;
